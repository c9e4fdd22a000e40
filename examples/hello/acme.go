package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"github.com/gwist/gwist"
)

// Flags for automatic HTTPS (see docs/https.md, "Automatic HTTPS"). Off unless
// -acme-dir is set.
var (
	acmeDir = flag.String("acme-dir", "",
		"ACME directory URL: get -tls-addr's certificate automatically (off when empty); try "+
			"https://acme-staging-v02.api.letsencrypt.org/directory before Let's Encrypt's production "+
			"https://acme-v02.api.letsencrypt.org/directory")
	acmeDomain = flag.String("acme-domain", "",
		"with -acme-dir: the names (comma-separated) to get certificates for; their DNS must point here")
	acmeCache = flag.String("acme-cache", "",
		"with -acme-dir: directory keeping the ACME account key and the certificates across restarts "+
			"(empty: memory only, and every start orders again)")
)

// startACME serves HTTPS on tlsAddr with certificates from the -acme-dir CA
// (TLS-ALPN-01 on that listener) and, when addr is set, HTTP-01 and a
// redirect to HTTPS on addr (the app's routes are then HTTPS only).
func startACME(app *gwist.App, addr, tlsAddr string, ownCert bool) error {
	switch {
	case tlsAddr == "":
		return errors.New("-acme-dir needs -tls-addr (the CA validates TLS-ALPN-01 on port 443)")
	case *acmeDomain == "":
		return errors.New("-acme-dir needs -acme-domain")
	case ownCert:
		return errors.New("-acme-dir gets the certificate: drop -cert and -key")
	}
	m := &autocert.Manager{
		Prompt:     autocert.AcceptTOS,
		HostPolicy: autocert.HostWhitelist(strings.Split(*acmeDomain, ",")...),
		Client:     &acme.Client{DirectoryURL: *acmeDir},
	}
	if *acmeCache != "" {
		m.Cache = autocert.DirCache(*acmeCache)
	} else {
		fmt.Println("no -acme-cache: certificates are kept in memory only")
	}
	bound, err := app.StartAutoTLS(tlsAddr, m, listenOptions()...)
	if err != nil {
		return err
	}
	fmt.Printf("listening on https://%s (certificates for %s from %s)\n", bound, *acmeDomain, *acmeDir)
	if addr != "" {
		if bound, err = app.StartACMEHTTP(addr, m, listenOptions()...); err != nil {
			return err
		}
		fmt.Printf("listening on http://%s (ACME HTTP-01 challenges, and a redirect to https)\n", bound)
	}
	return nil
}
