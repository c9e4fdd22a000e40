// Command gzipjson serves GET /big, about 100 KB of JSON, compressed with
// gzip for clients that accept it, by gwist with middleware.Gzip or by
// net/http with an equivalent middleware over compress/gzip (same level,
// pooled writers, same minimum length), for scripts/gzip-json.sh.
//
//	gzipjson -impl gwist|nethttp -addr 127.0.0.1:8080
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

func main() {
	impl := flag.String("impl", "gwist", "gwist or nethttp")
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	body := bigJSON()
	switch *impl {
	case "gwist":
		app := gwist.New()
		app.Use(middleware.Gzip(middleware.GzipConfig{}))
		app.GET("/big", func(c *gwist.Ctx) error { return c.Bytes(200, "application/json", body) })
		if _, err := app.Start(*addr); err != nil {
			log.Fatal(err)
		}
	case "nethttp":
		h := gzipHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		mux := http.NewServeMux()
		mux.Handle("GET /big", h)
		ln, err := net.Listen("tcp", *addr) // bound before "listening on" is printed
		if err != nil {
			log.Fatal(err)
		}
		go func() { log.Fatal(http.Serve(ln, mux)) }()
	default:
		log.Fatalf("unknown -impl %q", *impl)
	}
	fmt.Printf("%s listening on %s, /big is %d bytes\n", *impl, *addr, len(body))
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}

// bigJSON is about 100 KB of JSON records, as an API list answer would be.
func bigJSON() []byte {
	type item struct {
		ID    int      `json:"id"`
		Name  string   `json:"name"`
		Email string   `json:"email"`
		Tags  []string `json:"tags"`
		Score float64  `json:"score"`
	}
	var items []item
	for i := 0; ; i++ {
		items = append(items, item{ID: i, Name: fmt.Sprintf("user %d %s", i, strings.Repeat("x", i%17)),
			Email: fmt.Sprintf("user%d@example.com", i*7919%10007), Tags: []string{"alpha", "beta"}[:1+i%2],
			Score: float64(i*31%1000) / 10})
		if len(items)%50 == 0 {
			if b, _ := json.Marshal(items); len(b) >= 100_000 {
				return b[:len(b):len(b)]
			}
		}
	}
}

// gzipHandler is the net/http counterpart of middleware.Gzip for this
// benchmark: compress/gzip at the default level with pooled writers,
// bodies under 1024 bytes sent as they are.
func gzipHandler(next http.Handler) http.Handler {
	pool := sync.Pool{New: func() any { zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return zw }}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Add("Vary", "Accept-Encoding")
		gw := &gzipResponseWriter{ResponseWriter: w, pool: &pool}
		next.ServeHTTP(gw, r)
		gw.finish()
	})
}

type gzipResponseWriter struct {
	http.ResponseWriter
	pool   *sync.Pool
	zw     *gzip.Writer
	buf    []byte
	status int
}

func (g *gzipResponseWriter) WriteHeader(code int) { g.status = code }

func (g *gzipResponseWriter) Write(p []byte) (int, error) {
	if g.zw != nil {
		return g.zw.Write(p)
	}
	g.buf = append(g.buf, p...)
	if len(g.buf) >= 1024 {
		g.start()
	}
	return len(p), nil
}

func (g *gzipResponseWriter) start() {
	h := g.Header()
	h.Set("Content-Encoding", "gzip")
	h.Del("Content-Length")
	g.ResponseWriter.WriteHeader(max(g.status, 200))
	g.zw = g.pool.Get().(*gzip.Writer)
	g.zw.Reset(g.ResponseWriter)
	_, _ = g.zw.Write(g.buf)
	g.buf = nil
}

func (g *gzipResponseWriter) finish() {
	if g.zw == nil {
		if g.status != 0 {
			g.ResponseWriter.WriteHeader(g.status)
		}
		_, _ = g.ResponseWriter.Write(g.buf)
		return
	}
	_ = g.zw.Close()
	g.pool.Put(g.zw)
}
