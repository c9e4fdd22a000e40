package gwist

import (
	"net/url"
	"strings"

	"github.com/gwist/gwist/http1"
)

// The Unsafe accessors are the zero-copy way to read a request, for hot
// paths that know what they do. Their strings and slices point into the
// connection's pooled buffers and are valid only until the handler returns:
// the next request on the connection is parsed into the same memory, so a
// value kept longer (stored in a map, sent to a goroutine, logged by an
// asynchronous slog handler) silently reads other bytes later. Each saves
// one copy (one allocation and a few ns per value; measured in
// benchmarks/RESULTS.md). Use the safe accessors (Path, Param, Query,
// Header, Body, Request) unless a profile says otherwise, and convert
// with strings.Clone what must outlive the request.

// UnsafePath is Path without the copy: valid until the handler returns.
func (c *Ctx) UnsafePath() string { return c.ex.Request.Path }

// UnsafeParam is Param without the copy and without percent-decoding (the
// segment as sent): valid until the handler returns.
func (c *Ctx) UnsafeParam(name string) string { return c.params.Get(name) }

// UnsafeQuery is Query without the copy and without decoding (the value as
// sent): valid until the handler returns.
func (c *Ctx) UnsafeQuery(name string) string {
	q := c.ex.Request.RawQuery
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k != name && !queryKeyIs(k, name) {
			continue
		}
		return v
	}
	return ""
}

// queryKeyIs reports whether the encoded query key k decodes to name.
func queryKeyIs(k, name string) bool {
	if strings.IndexByte(k, '%') < 0 && strings.IndexByte(k, '+') < 0 {
		return false // k != name already checked
	}
	d, err := url.QueryUnescape(k)
	return err == nil && d == name
}

// UnsafeHeader is Header without the copy: valid until the handler returns.
func (c *Ctx) UnsafeHeader(name string) string { return c.ex.Request.Header(name) }

// UnsafeBody is Body without handing the buffer over: valid, and not to be
// changed, until the handler returns; the connection keeps reusing its
// buffer for the next request's body.
func (c *Ctx) UnsafeBody() []byte { return c.ex.Request.Body }

// UnsafeRequest is Request without the copy: the parsed request itself,
// valid until the handler returns, and not to be changed.
func (c *Ctx) UnsafeRequest() *http1.Request { return &c.ex.Request }
