package middleware

import (
	"compress/gzip"
	"net/http"
	"strings"
	"sync"

	"github.com/gwist/gwist"
)

// GzipConfig configures Gzip. The zero value is usable.
type GzipConfig struct {
	// Level is the compress/gzip level (default gzip.DefaultCompression;
	// gzip.BestSpeed trades ratio for CPU).
	Level int
	// MinLength is the smallest body worth compressing (default 1024
	// bytes): a response shorter than this is sent as is.
	MinLength int
	// SkipTypes are Content-Type prefixes never compressed, replacing the
	// default list: images, video, audio, archives, fonts, and
	// text/event-stream (events must leave one by one).
	SkipTypes []string
}

var defaultGzipSkip = []string{
	"image/", "video/", "audio/", "font/woff", "application/zip", "application/gzip",
	"application/x-gzip", "application/zstd", "application/x-bzip2", "application/x-xz",
	"application/x-7z-compressed", "application/x-rar-compressed", "application/wasm",
	"application/octet-stream", "text/event-stream",
}

// Gzip compresses response bodies for clients that accept gzip
// (Accept-Encoding), with compress/gzip and pooled writers. It leaves alone
// HEAD requests, bodies shorter than MinLength, 1xx/204/206/304 answers,
// responses that already have a Content-Encoding, and the SkipTypes
// (already compressed formats, event streams). It streams: the body goes
// through the compressor as the handler writes it, the response streams
// once the compressed bytes pass the stream threshold as any response
// would, and the handler's Flush flushes the compressor first, so a
// streamed body reaches the client at each Flush. A compressed response
// carries Content-Encoding: gzip and no Content-Length of the handler's
// (the length changes); every answer carries Vary: Accept-Encoding.
func Gzip(cfg GzipConfig) gwist.Middleware {
	if cfg.Level == 0 {
		cfg.Level = gzip.DefaultCompression
	}
	if _, err := gzip.NewWriterLevel(nil, cfg.Level); err != nil {
		panic("middleware: Gzip: " + err.Error())
	}
	if cfg.MinLength <= 0 {
		cfg.MinLength = 1024
	}
	if cfg.SkipTypes == nil {
		cfg.SkipTypes = defaultGzipSkip
	}
	pool := &sync.Pool{New: func() any {
		zw, _ := gzip.NewWriterLevel(nil, cfg.Level)
		return &gzipWriter{zw: zw}
	}}
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			if c.UnsafeRequest().Method == http.MethodHead || !acceptsGzip(c.UnsafeHeader("Accept-Encoding")) {
				return next(c)
			}
			c.AddHeader("Vary", "Accept-Encoding")
			gw := pool.Get().(*gzipWriter)
			prev := c.Writer()
			gw.c, gw.next, gw.cfg, gw.state = c, prev, &cfg, gzipUndecided
			c.SetWriter(gw)
			done := false
			defer func() {
				if !done { // a panic: leave the body to whoever recovers it
					c.SetWriter(prev)
					gw.release(pool)
				}
			}()
			err := next(c)
			c.SetWriter(prev)
			done = true
			ferr := gw.finish()
			gw.release(pool)
			if err == nil {
				err = ferr
			}
			return err
		}
	}
}

// gzipWriter states: undecided while the body is shorter than MinLength
// and nothing was flushed; then compressing, or passing through.
const (
	gzipUndecided = iota
	gzipCompress
	gzipPass
)

type gzipWriter struct {
	c     *gwist.Ctx
	next  gwist.BodyWriter
	cfg   *GzipConfig
	zw    *gzip.Writer
	buf   []byte // the body while undecided
	state int
}

func (g *gzipWriter) Write(p []byte) (int, error) {
	switch g.state {
	case gzipCompress:
		return g.zw.Write(p)
	case gzipPass:
		return g.next.Write(p)
	}
	g.buf = append(g.buf, p...)
	if len(g.buf) >= g.cfg.MinLength {
		if err := g.decide(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (g *gzipWriter) Flush() error {
	if g.state == gzipUndecided {
		if err := g.decide(); err != nil {
			return err
		}
	}
	if g.state == gzipCompress {
		if err := g.zw.Flush(); err != nil {
			return err
		}
	}
	return g.next.Flush()
}

// decide picks compressing or passing through, and sends the buffered
// body on its way.
func (g *gzipWriter) decide() error {
	g.state = gzipPass
	if g.compressible() {
		g.state = gzipCompress
		g.c.SetHeader("Content-Encoding", "gzip")
		g.c.DelHeader("Content-Length")
		g.zw.Reset(g.next)
	}
	b := g.buf
	g.buf = g.buf[:0]
	if len(b) == 0 {
		return nil
	}
	var err error
	if g.state == gzipCompress {
		_, err = g.zw.Write(b)
	} else {
		_, err = g.next.Write(b)
	}
	return err
}

func (g *gzipWriter) compressible() bool {
	if g.c.HeadersSent() {
		return false
	}
	switch s := g.c.ResponseStatus(); {
	case s < 200, s == http.StatusNoContent, s == http.StatusPartialContent, s == http.StatusNotModified:
		return false
	}
	if g.c.ResponseHeader("Content-Encoding") != "" {
		return false
	}
	ct := g.c.ResponseHeader("Content-Type")
	for _, p := range g.cfg.SkipTypes {
		if len(ct) >= len(p) && strings.EqualFold(ct[:len(p)], p) {
			return false
		}
	}
	return true
}

// finish ends the body once the handlers returned: a short body goes out
// as is, a compressed one gets the gzip trailer.
func (g *gzipWriter) finish() error {
	switch g.state {
	case gzipCompress:
		return g.zw.Close()
	case gzipUndecided:
		if len(g.buf) > 0 {
			_, err := g.next.Write(g.buf)
			return err
		}
	}
	return nil
}

// ResetBody drops the body so far (the response was reset, e.g. after a
// panic): the next byte starts a new decision and a new gzip stream.
func (g *gzipWriter) ResetBody() {
	g.state = gzipUndecided
	g.buf = g.buf[:0]
	g.zw.Reset(g.next)
	if r, ok := g.next.(interface{ ResetBody() }); ok {
		r.ResetBody()
	}
}

func (g *gzipWriter) release(pool *sync.Pool) {
	g.zw.Reset(nil)
	g.c, g.next, g.cfg = nil, nil, nil
	if cap(g.buf) > 64<<10 {
		g.buf = nil
	}
	g.buf = g.buf[:0]
	pool.Put(g)
}

// acceptsGzip reports whether an Accept-Encoding value accepts gzip (or
// "*") with a q-value above zero.
func acceptsGzip(ae string) bool {
	for ae != "" {
		var part string
		part, ae, _ = strings.Cut(ae, ",")
		name, params, _ := strings.Cut(part, ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, "gzip") && !strings.EqualFold(name, "x-gzip") && name != "*" {
			continue
		}
		q := strings.TrimSpace(params)
		if v, ok := strings.CutPrefix(q, "q="); ok {
			v = strings.TrimSpace(v)
			if v == "0" || strings.HasPrefix(v, "0.") && strings.Trim(v[2:], "0") == "" {
				return false
			}
		}
		return true
	}
	return false
}
