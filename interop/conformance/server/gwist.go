package referenceserver

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"

	"github.com/gwist/gwist"
)

// gwistServer serves the conformance handler on gwist: connect-go's
// http.Handler mounted with gwist.WrapHandler on every path, beside an
// ordinary gwist route.
type gwistServer struct {
	app  *gwist.App
	addr string
	tls  *tls.Config
	done chan struct{}
}

// newGwistServer serves handler on gwist at listenAddr: HTTP/1.1 only
// (h2 false), or with HTTP/2 (h2 over TLS through ALPN, h2c by prior
// knowledge on plaintext).
func newGwistServer(handler http.Handler, listenAddr string, tlsConf *tls.Config, h2 bool) (httpServer, error) {
	app := gwist.New(gwist.WithHTTP2(h2), gwist.WithLogger(nopSlog()))
	app.GET("/gwist/healthz", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	wrapped := gwist.WrapHandler(handler)
	app.Any("/*path", wrapped)
	if tlsConf != nil {
		tlsConf = tlsConf.Clone()
		if h2 {
			tlsConf.NextProtos = []string{"h2", "http/1.1"}
		} else {
			tlsConf.NextProtos = []string{"http/1.1"}
		}
	}
	var (
		bound net.Addr
		err   error
	)
	if tlsConf != nil {
		bound, err = app.StartTLS(listenAddr, tlsConf)
	} else {
		bound, err = app.Start(listenAddr)
	}
	if err != nil {
		return nil, err
	}
	return &gwistServer{app: app, addr: bound.String(), done: make(chan struct{})}, nil
}

// Serve waits until the server is shut down (gwist serves in the
// background from Start).
func (s *gwistServer) Serve() error {
	<-s.done
	return nil
}

func (s *gwistServer) Shutdown(ctx context.Context) error {
	defer close(s.done)
	return s.app.Shutdown(ctx)
}

func (s *gwistServer) Close() error { return nil }

func (s *gwistServer) Addr() string { return s.addr }

// nopSlog is gwist's logger here: the conformance runner reads stderr.
func nopSlog() *slog.Logger { return slog.New(slog.DiscardHandler) }
