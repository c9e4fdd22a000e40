package gwist_test

import (
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// bridgeEndpoint is one server of a net/http handler and a client for it:
// gwist (through WrapHandler) or net/http itself, over one protocol.
type bridgeEndpoint struct {
	name   string // "gwist/h1", "net/http/h2c", ...
	gwist  bool
	proto  string // "h1", "h2c", "h2" (TLS)
	client *http.Client
	url    string // the handler's URL
}

// bridgeEndpoints serves h at /x (every method) on gwist (WrapHandler; with
// opts) and on net/http, each over HTTP/1.1, h2c and h2 over TLS, so that a
// test compares gwist's behaviour with net/http's for the same handler.
func bridgeEndpoints(t *testing.T, h http.Handler, opts ...gwist.Option) []bridgeEndpoint {
	t.Helper()
	pki := getPKI(t)
	clientTLS := &tls.Config{RootCAs: pki.pool, ServerName: "localhost"}
	var eps []bridgeEndpoint

	newApp := func() *gwist.App {
		app := gwist.New(append([]gwist.Option{gwist.WithHTTP2(true), gwist.WithLogger(discardLogger())}, opts...)...)
		app.Any("/x", gwist.WrapHandler(h))
		return app
	}
	plain := startApp(t, newApp())
	secure := startTLS(t, newApp(), serverTLSConfig(t))
	eps = append(eps,
		bridgeEndpoint{"gwist/h1", true, "h1", testkit.Client(t, testkit.H1(nil)), "http://" + plain + "/x"},
		bridgeEndpoint{"gwist/h2c", true, "h2c", testkit.Client(t, testkit.H2C()), "http://" + plain + "/x"},
		bridgeEndpoint{"gwist/h2", true, "h2", testkit.Client(t, testkit.H2(clientTLS)), "https://" + secure + "/x"},
	)

	mux := http.NewServeMux()
	mux.Handle("/x", h)
	protos := new(http.Protocols)
	protos.SetHTTP1(true)
	protos.SetHTTP2(true)
	protos.SetUnencryptedHTTP2(true)
	serve := func(cfg *tls.Config) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: mux, Protocols: protos, TLSConfig: cfg, ErrorLog: discardStdLogger()}
		done := make(chan error, 1)
		go func() {
			if cfg != nil {
				done <- srv.ServeTLS(ln, "", "")
			} else {
				done <- srv.Serve(ln)
			}
		}()
		t.Cleanup(func() {
			_ = srv.Close()
			if err := <-done; !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("net/http server: %v", err)
			}
		})
		return ln.Addr().String()
	}
	nplain := serve(nil)
	nsecure := serve(serverTLSConfig(t))
	eps = append(eps,
		bridgeEndpoint{"net/http/h1", false, "h1", testkit.Client(t, testkit.H1(nil)), "http://" + nplain + "/x"},
		bridgeEndpoint{"net/http/h2c", false, "h2c", testkit.Client(t, testkit.H2C()), "http://" + nplain + "/x"},
		bridgeEndpoint{"net/http/h2", false, "h2", testkit.Client(t, testkit.H2(clientTLS)), "https://" + nsecure + "/x"},
	)
	return eps
}

// discardStdLogger is a net/http server's ErrorLog that drops everything.
func discardStdLogger() *log.Logger { return log.New(io.Discard, "", 0) }
