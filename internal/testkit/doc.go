// Package testkit is the test kit the main module's tests share: an
// in-memory PKI (a CA, leaf certificates for names, tls.Configs for
// servers and clients), free loopback addresses, dialers (raw TCP, TLS),
// HTTP clients (HTTP/1.1, HTTPS, h2 over TLS, h2c), a way to serve an App
// for the length of a test, and waits on observable conditions in place of
// sleeps.
//
// It depends on the standard library only, so that the internal tests of
// the packages gwist is built on (engine, tlsstate) can use it as well as
// the root package's. Certificates are made with ECDSA P-256 keys; the
// functions that make them panic on an error (crypto/rand failing), so that
// they can be called from a sync.Once, a TestMain or an example.
package testkit
