package gwist_test

import (
	"log"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"github.com/gwist/gwist"
)

// Automatic HTTPS: certificates from Let's Encrypt (any RFC 8555 CA) for the
// names allowed, obtained on their first handshake, renewed in the
// background, kept on disk. The names' DNS must point at this machine, and
// the CA must reach port 443 (TLS-ALPN-01) or port 80 (HTTP-01). Try the
// staging directory first: production has tight rate limits. (Not run: it
// needs a public address.)
func ExampleApp_ListenAutoTLS() {
	m := &autocert.Manager{
		Prompt:     autocert.AcceptTOS,
		HostPolicy: autocert.HostWhitelist("example.com", "www.example.com"),
		Cache:      autocert.DirCache("/var/lib/myapp/acme"),
		Client:     &acme.Client{DirectoryURL: "https://acme-staging-v02.api.letsencrypt.org/directory"},
	}
	app := gwist.New(gwist.WithHTTP2(true))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "Hello over HTTPS\n") })

	// Port 80: HTTP-01 validations, and a redirect to HTTPS for the rest.
	if _, err := app.StartACMEHTTP(":80", m); err != nil {
		log.Fatal(err)
	}
	// Port 443: the App, with TLS-ALPN-01 validations answered in the handshake.
	log.Fatal(app.ListenAutoTLS(":443", m))
}
