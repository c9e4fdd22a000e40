package gwist_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gwist/gwist"
)

// An App is an http.Handler: test it with net/http/httptest, no listener
// needed. The request goes through the same middleware, router and error
// handler as on gwist's own listeners.
func ExampleApp_ServeHTTP() {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error {
		return c.JSON(200, map[string]string{"id": c.Param("id")})
	})

	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/users/42", nil))
	fmt.Println(w.Code, w.Header().Get("Content-Type"), strings.TrimSpace(w.Body.String()))

	w = httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("DELETE", "/users/42", nil))
	fmt.Println(w.Code, w.Header().Get("Allow"))
	// Output:
	// 200 application/json {"id":"42"}
	// 405 GET, HEAD, OPTIONS
}

// WrapHandler mounts a net/http handler on a gwist route; route parameters
// are its request's path values.
func ExampleWrapHandler() {
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s from net/http\n", r.PathValue("name"))
	})
	app := gwist.New()
	app.GET("/hello/{name}", gwist.WrapHandler(hello))

	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/hello/gopher", nil))
	fmt.Print(w.Header().Get("Content-Type"), "\n", w.Body.String())
	// Output:
	// text/plain; charset=utf-8
	// hello gopher from net/http
}

// WrapMiddleware runs net/http middleware (rs/cors, chi's middleware, your
// own) in a gwist chain.
func ExampleWrapMiddleware() {
	poweredBy := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Powered-By", "net/http middleware")
			if r.Header.Get("X-Block") != "" {
				http.Error(w, "blocked", http.StatusForbidden) // answers without next
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	app := gwist.New()
	app.Use(gwist.WrapMiddleware(poweredBy))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "hello from gwist") })

	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	fmt.Println(w.Code, w.Header().Get("X-Powered-By"), w.Body.String())

	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Block", "1")
	w = httptest.NewRecorder()
	app.ServeHTTP(w, r)
	fmt.Print(w.Code, " ", w.Body.String())
	// Output:
	// 200 net/http middleware hello from gwist
	// 403 blocked
}

// Ctx.TLS gives the connection's TLS state: version, cipher suite, SNI,
// ALPN and client certificates. It is nil on plaintext.
func ExampleCtx_TLS() {
	app := gwist.New()
	app.GET("/", func(c *gwist.Ctx) error {
		cs := c.TLS()
		if cs == nil {
			return c.String(200, "plaintext\n")
		}
		clients := "no client certificate"
		if len(cs.PeerCertificates) > 0 {
			clients = "client " + cs.PeerCertificates[0].Subject.CommonName
		}
		return c.String(200, tls.VersionName(cs.Version)+", "+clients+"\n")
	})

	srv := httptest.NewTLSServer(app) // here through ServeHTTP; the same on app.StartTLS
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Print(string(b))
	// Output:
	// TLS 1.3, no client certificate
}
