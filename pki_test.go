package gwist_test

import (
	"crypto/tls"
	"crypto/x509"
	"sync"
	"testing"

	"github.com/gwist/gwist/internal/testkit"
)

// testPKI is a CA with server certificates for two names and a client
// certificate, all made in memory by the test kit.
type testPKI struct {
	pool            *x509.CertPool
	serverA         tls.Certificate // localhost, a.test, 127.0.0.1
	serverB         tls.Certificate // b.test, 127.0.0.1
	client          tls.Certificate
	untrustedClient tls.Certificate // issued by a CA the servers do not trust
}

var (
	pkiOnce sync.Once
	pki     *testPKI
)

func getPKI(testing.TB) *testPKI {
	pkiOnce.Do(func() {
		ca := testkit.NewCA("gwist test CA")
		other := testkit.NewCA("gwist test CA") // a CA the server does not trust
		pki = &testPKI{
			pool:            ca.Pool,
			serverA:         ca.Server("a.test", "localhost", "a.test", "127.0.0.1"),
			serverB:         ca.Server("b.test", "b.test", "127.0.0.1"),
			client:          ca.Client("client"),
			untrustedClient: other.Client("intruder"),
		}
	})
	return pki
}
