// Command hello is gwist's example server, also the server that the
// benchmarks and acceptance checks drive.
//
//	go run ./examples/hello [-addr 127.0.0.1:8080] [-inline] [-workers N] [-loops N]
//	    [-tls-addr 127.0.0.1:8443 [-cert cert.pem -key key.pem]] [-quickack=false]
//	    [-max-conns N] [-static-dir DIR] [-middleware] [-http2=false]
//	    [-reuseport] [-drain-delay D] [-health-addr 127.0.0.1:9101]
//	    [-proxy-protocol 127.0.0.1,10.0.0.0/8] [-metrics=false]
//	    [-acme-dir URL -acme-domain NAME[,NAME] [-acme-cache DIR]]
//
// With -tls-addr it also serves the same routes over HTTPS; without -cert
// and -key it makes an in-memory self-signed ECDSA P-256 certificate. Both
// listeners speak HTTP/2 too (h2 through ALPN, h2c by prior knowledge or
// Upgrade) unless -http2=false.
//
// Routes:
//
//	GET  /           200 text/plain "Hello, World!"
//	GET  /json       {"message":"Hello, World!"}
//	GET  /users/:id  {"id":"<id>"}
//	POST /echo       the request body, with the request's Content-Type
//	GET  /slow?ms=N  waits N ms (at most 10000), then "done"
//	GET  /events?n=N&ms=M
//	                 Server-Sent Events: a counter event ("id: i", "data: i")
//	                 every M ms (default 100, at most 60000), N of them
//	                 (default 3, at most 100000), then the stream ends
//	GET  /download?bytes=N
//	                 N bytes (at most 8 GiB) of generated data with a
//	                 Content-Length, streamed 32 KiB at a time as the client
//	                 reads (never held in memory; a slow client blocks the
//	                 handler, not the server's memory)
//	GET  /static/*filepath
//	                 the files of examples/hello/public (embedded in the
//	                 binary, so it works from any directory), or of
//	                 -static-dir when given (served from disk through
//	                 Static: ETag, ranges, 304, index.html, large files
//	                 streamed)
//	POST /upload     reads the body as a stream as it arrives (no size limit,
//	                 never held in memory) and answers
//	                 {"bytes":N,"sha256":"<hex>"}
//	GET  /ws         a WebSocket echoing every message (text and binary)
//	GET  /debug/pprof/   net/http/pprof through gwist.WrapHandler: the index,
//	                 /debug/pprof/heap, goroutine, allocs, ..., cmdline,
//	                 symbol, profile?seconds=N and trace?seconds=N (these
//	                 two answer 501 with -inline)
//	GET  /livez      200 "ok" while the process serves (draining included)
//	GET  /readyz     200 "ok"; 503 "draining" from the moment SIGTERM arrives
//	GET  /whoami     the client's address as the server sees it, "ip:port\n"
//	                 (with -proxy-protocol, the one a trusted proxy's PROXY
//	                 header gave)
//	GET  /metrics    Prometheus metrics (metrics.go; -metrics=false: none)
//
// /events and /download need the worker pool: with -inline they answer 501.
// /upload runs on the worker pool even with -inline.
//
// With -middleware (off by default, so that benchmarks measure bare routes)
// every request goes through the request-ID, access-log (to stderr),
// recover, gzip and CORS (allowing the origin http://localhost:3000)
// middleware.
//
// It stops gracefully on SIGINT or SIGTERM: /readyz turns 503, and after
// -drain-delay (default 0) the listeners close and the requests in flight
// finish (10 s at most). With -reuseport a new release can bind the same
// addresses while this one drains (examples/restart/restart.sh); -health-addr
// is a listener of this process alone, to probe its /readyz.
//
// With -acme-dir (an ACME directory URL; off by default) the -tls-addr
// listener gets its certificates for -acme-domain automatically (acme.go,
// with golang.org/x/crypto/acme/autocert): TLS-ALPN-01 on -tls-addr, and on
// -addr the HTTP-01 challenges and a redirect to HTTPS instead of the
// routes; -acme-cache keeps the account and certificates on disk. In
// production: -addr :80 -tls-addr :443, and the names' DNS pointing here.
//
// With -proxy-protocol (a comma-separated list of trusted networks or
// addresses) the -addr and -tls-addr listeners read the PROXY protocol, v1
// or v2, from those peers (HAProxy's send-proxy, send-proxy-v2), before TLS;
// other peers are served with their own address. -health-addr does not.
package main

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"embed"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/gwist/gwist"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "plaintext HTTP listen address")
	inline := flag.Bool("inline", false, "run handlers on the event loop instead of the worker pool")
	workers := flag.Int("workers", 0, "worker pool size (0: default)")
	loops := flag.Int("loops", 0, "event loops (0: default, one per P with -inline, else half the Ps)")
	tlsAddr := flag.String("tls-addr", "", "HTTPS listen address (off when empty), e.g. 127.0.0.1:8443")
	certFile := flag.String("cert", "", "PEM certificate for -tls-addr (default: self-signed, in memory)")
	keyFile := flag.String("key", "", "PEM private key for -cert")
	quickAck := flag.Bool("quickack", true, "re-arm TCP_QUICKACK during TLS handshakes")
	maxConns := flag.Int("max-conns", 0, "connections open at once (0: from the descriptor limit)")
	staticDir := flag.String("static-dir", "", "directory served at /static/ (default: the embedded examples/hello/public)")
	withMiddleware := flag.Bool("middleware", false,
		"wrap every route in request-ID, access-log, recover, gzip and CORS (origin "+corsOrigin+") middleware")
	http2 := flag.Bool("http2", true, "serve HTTP/2 too: h2 through ALPN on -tls-addr, h2c (prior knowledge or Upgrade) on -addr")
	flag.Parse()

	// Signals are caught before anything listens: a SIGTERM sent as soon as
	// "listening on" is printed drains instead of killing the process.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)

	app := gwist.New(append(opsAppOptions(), gwist.WithInline(*inline), gwist.WithWorkers(*workers), gwist.WithLoops(*loops),
		gwist.WithQuickAck(*quickAck), gwist.WithMaxConns(*maxConns), gwist.WithHTTP2(*http2))...)
	routes(app)
	healthRoutes(app)
	whoamiRoute(app)
	static(app, *staticDir)
	debugRoutes(app, *inline)
	wsRoutes(app)
	metricsRoute(app)
	if *withMiddleware {
		useMiddleware(app, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	}

	if *acmeDir != "" { // acme.go
		if err := startACME(app, *addr, *tlsAddr, *certFile != "" || *keyFile != ""); err != nil {
			log.Fatal(err)
		}
	}
	if *addr != "" && *acmeDir == "" {
		bound, err := app.Start(*addr, listenOptions()...)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("listening on http://%s\n", bound)
	}
	if *tlsAddr != "" && *acmeDir == "" {
		cfg, err := tlsConfig(*certFile, *keyFile)
		if err != nil {
			log.Fatal(err)
		}
		bound, err := app.StartTLS(*tlsAddr, cfg, listenOptions()...)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("listening on https://%s\n", bound)
	}

	if err := startHealthListener(app); err != nil {
		log.Fatal(err)
	}

	<-stop
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout())
	defer cancel()
	if err := app.Shutdown(ctx); err != nil {
		log.Printf("shutdown: %v", err)
		os.Exit(1)
	}
}

const (
	maxSlowMillis     = 10000
	maxEvents         = 100000
	maxEventMillis    = 60000
	maxDownloadBytes  = 8 << 30
	downloadChunkSize = 32 << 10
)

func tlsConfig(certFile, keyFile string) (*tls.Config, error) {
	var cert tls.Certificate
	var err error
	if certFile != "" || keyFile != "" {
		cert, err = tls.LoadX509KeyPair(certFile, keyFile)
	} else {
		cert, err = selfSigned()
		fmt.Println("using an in-memory self-signed ECDSA P-256 certificate for localhost")
	}
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}}, nil
}

func routes(app *gwist.App) {
	app.GET("/", func(c *gwist.Ctx) error {
		return c.String(200, "Hello, World!")
	})
	app.GET("/json", func(c *gwist.Ctx) error {
		return c.JSON(200, struct {
			Message string `json:"message"`
		}{"Hello, World!"})
	})
	app.GET("/users/:id", func(c *gwist.Ctx) error {
		return c.JSON(200, struct {
			ID string `json:"id"`
		}{c.Param("id")})
	})
	app.POST("/echo", func(c *gwist.Ctx) error {
		return c.Bytes(200, c.Header("Content-Type"), c.Body())
	})
	app.GET("/slow", func(c *gwist.Ctx) error {
		ms, err := strconv.Atoi(c.Query("ms"))
		if err != nil || ms < 0 {
			return gwist.NewHTTPError(400, "ms must be a non-negative integer")
		}
		t := time.NewTimer(time.Duration(min(ms, maxSlowMillis)) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return c.String(200, "done")
		case <-c.Context().Done():
			return errors.New("client went away")
		}
	})
	app.GET("/events", events)
	app.GET("/download", download)
	app.StreamBody(0).POST("/upload", upload)
}

//go:embed public
var public embed.FS

// static serves GET /static/*filepath: dir from disk, or the embedded
// public directory when dir is "".
func static(app *gwist.App, dir string) {
	if dir != "" {
		app.Static("/static", dir)
		return
	}
	sub, err := fs.Sub(public, "public")
	if err != nil {
		panic(err)
	}
	app.StaticFS("/static", sub)
}

// queryInt parses the query parameter name as an integer in [0, max],
// def when absent.
func queryInt(c *gwist.Ctx, name string, def, max int64) (int64, error) {
	v := c.Query(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > max {
		return 0, gwist.NewHTTPError(400, fmt.Sprintf("%s must be an integer from 0 to %d", name, max))
	}
	return n, nil
}

// events is GET /events: a Server-Sent Events counter. It runs as an
// SSEFeed driven by a timer, so an open /events stream holds no goroutine
// between its events (10,000 idle listeners cost little memory).
func events(c *gwist.Ctx) error {
	n, err := queryInt(c, "n", 3, maxEvents)
	if err != nil {
		return err
	}
	ms, err := queryInt(c, "ms", 100, maxEventMillis)
	if err != nil {
		return err
	}
	feed, err := c.SSEFeed()
	if errors.Is(err, gwist.ErrInlineStreaming) {
		return gwist.NewHTTPError(501, "/events needs the worker pool (run without -inline)")
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return feed.Close()
	}
	counter := &eventCounter{feed: feed, n: n, every: max(time.Duration(ms)*time.Millisecond, time.Millisecond)}
	counter.next()
	return nil
}

// eventCounter sends events 1..n to a feed, one per timer tick.
type eventCounter struct {
	feed  *gwist.SSEFeed
	n, i  int64
	every time.Duration
}

// next sends the next event and arms the timer for the one after; it
// closes the feed after the last event or when the client is gone.
func (e *eventCounter) next() {
	e.i++
	id := strconv.FormatInt(e.i, 10)
	if err := e.feed.Send(gwist.SSEEvent{ID: id, Data: id}); err != nil || e.i >= e.n {
		_ = e.feed.Close()
		return
	}
	time.AfterFunc(e.every, e.next)
}

// download is GET /download?bytes=N: N generated bytes, streamed.
func download(c *gwist.Ctx) error {
	n, err := queryInt(c, "bytes", -1, maxDownloadBytes)
	if err != nil || n < 0 {
		return gwist.NewHTTPError(400, fmt.Sprintf("bytes must be an integer from 0 to %d", int64(maxDownloadBytes)))
	}
	c.SetHeader("Content-Type", "application/octet-stream")
	c.SetHeader("Content-Length", strconv.FormatInt(n, 10))
	if err := c.Flush(); err != nil {
		if errors.Is(err, gwist.ErrInlineStreaming) {
			return gwist.NewHTTPError(501, "/download needs the worker pool (run without -inline)")
		}
		return err
	}
	chunk := make([]byte, downloadChunkSize)
	for i := range chunk {
		chunk[i] = 'a' + byte(i%26)
	}
	for left := n; left > 0; {
		p := chunk[:min(left, int64(len(chunk)))]
		if _, err := c.Write(p); err != nil {
			return err // the client left: the request's context is done too
		}
		left -= int64(len(p))
	}
	return nil
}

// upload is POST /upload: the body's length and sha256, read as it arrives.
func upload(c *gwist.Ctx) error {
	h := sha256.New()
	n, err := io.Copy(h, c.BodyReader())
	if err != nil {
		return err // the client left, or its chunked framing was malformed (400)
	}
	return c.JSON(200, struct {
		Bytes  int64  `json:"bytes"`
		SHA256 string `json:"sha256"`
	}{n, hex.EncodeToString(h.Sum(nil))})
}
