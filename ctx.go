package gwist

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/router"
)

// Ctx is one request and its response. The framework pools Ctx values: do
// not keep a Ctx after the handler returns. The strings and slices its
// accessors return (Method, Path, Route, Param, Query, Header, Body,
// Request) are the handler's own and may be kept; the Unsafe accessors
// (UnsafePath, UnsafeParam, ...) are the zero-copy exceptions.
type Ctx struct {
	app        *App
	ex         *engine.Exchange
	bodyBuf    bytes.Reader // BodyReader on a buffered body
	params     router.Params
	route      string
	routeIndex int // the matched route's place in App.routes; -1 for none
	responded  bool
	upgraded   bool // WebSocket accepted the handshake
	headerErr  error
	form       *formState // parsed form (form.go)

	bodyTaken bool           // Body handed the request's body buffer over
	req       *http1.Request // Request's copy, made on its first call
	ctx       context.Context
	ctxStops  []func()   // undo SetContext's cancellation links
	w         BodyWriter // SetWriter's; nil writes the body directly
	written   int64      // body bytes written so far (BytesWritten)
	bodyRead  int64      // bytes of a streamed body the handler read (Observation.BytesIn)
	handled   error      // the error the error handler last answered
	values    []ctxValue // Set and Get

	tlsState *tls.ConnectionState // TLS's copy, made on its first call
	tlsRead  bool

	typeState uint8  // the Content-Type sniffing of Write (sniff.go)
	held      []byte // Write's bytes held back for the sniff (sniff.go)
}

func (c *Ctx) reset(a *App, ex *engine.Exchange) {
	c.app, c.ex = a, ex
	c.params = c.params[:0]
	c.route, c.routeIndex = "", -1
	c.responded, c.upgraded = false, false
	c.headerErr = nil
	c.releaseForm()
	c.bodyBuf.Reset(nil) // do not pin the previous request's body
	c.bodyTaken = false
	c.req = nil
	c.ctx = nil
	c.w = nil
	c.written, c.bodyRead = 0, 0
	c.handled = nil
	c.tlsState, c.tlsRead = nil, false
	c.typeState, c.held = typeUnknown, c.held[:0]
	if len(c.values) > 0 {
		clear(c.values)
		c.values = c.values[:0]
	}
}

// finish releases what the request held once its handlers returned.
func (c *Ctx) finish() {
	c.releaseForm() // a multipart form's temporary files
	if len(c.ctxStops) > 0 {
		for _, stop := range c.ctxStops {
			stop()
		}
		clear(c.ctxStops)
		c.ctxStops = c.ctxStops[:0]
	}
	c.ex.EndContext() // nothing derived from the request's context reads it from now on
	c.ctx, c.w, c.req, c.tlsState = nil, nil, nil, nil
	if len(c.values) > 0 {
		clear(c.values) // let the values go now, not at the next request
		c.values = c.values[:0]
	}
}

// Method is the request method. The registered methods (GET, POST, ...)
// are constants; another method is copied.
func (c *Ctx) Method() string {
	if m := c.ex.Request.Method; http1.IsInternedMethod(m) {
		return m
	}
	return strings.Clone(c.ex.Request.Method)
}

// Path is the request path, without the query, as sent (not decoded). It
// is a copy (see UnsafePath).
func (c *Ctx) Path() string { return strings.Clone(c.ex.Request.Path) }

// Route is the pattern of the matched route ("" when none matched, and in
// app-level middleware before next runs: routing happens after it).
func (c *Ctx) Route() string { return c.route }

// Param returns the path parameter name, percent-decoded ("" when absent).
// It is a copy (see UnsafeParam).
func (c *Ctx) Param(name string) string {
	v := c.params.Get(name)
	if strings.IndexByte(v, '%') >= 0 {
		if d, err := url.PathUnescape(v); err == nil {
			return d // a new string already
		}
	}
	return strings.Clone(v)
}

// Query returns the first value of the query parameter name, decoded, or ""
// when absent. It is a copy (see UnsafeQuery).
func (c *Ctx) Query(name string) string {
	v := c.UnsafeQuery(name)
	if strings.IndexByte(v, '%') < 0 && strings.IndexByte(v, '+') < 0 {
		return strings.Clone(v)
	}
	if d, err := url.QueryUnescape(v); err == nil {
		return d // a new string already
	}
	return strings.Clone(v)
}

// Header returns the first value of the request header name
// (case-insensitive), or "". It is a copy (see UnsafeHeader).
func (c *Ctx) Header(name string) string { return strings.Clone(c.ex.Request.Header(name)) }

// Request gives the parsed request, for what the helpers above do not cover
// (all headers, the target, the protocol version, trailers). It is a copy,
// made on the first call of each request (four allocations) and shared by
// later calls of the same request: its strings and slices may be kept.
// UnsafeRequest gives the original without the copy.
func (c *Ctx) Request() *http1.Request {
	if c.req == nil {
		c.req = c.ex.Request.Clone()
		if c.bodyTaken {
			c.req.Body = c.ex.Request.Body // already the handler's: no second copy
		}
	}
	return c.req
}

// Body is the request body, already read in full and bounded by
// WithMaxBodyBytes. The slice is the handler's to keep: the request's
// buffer is handed over rather than copied, and the next request on the
// connection reads its body into a new one (one allocation, for requests
// whose handler called Body). On a route that streams its body
// (Group.StreamBody) it is nil: read the body with BodyReader there.
func (c *Ctx) Body() []byte {
	if !c.bodyTaken {
		c.bodyTaken = true
		c.ex.Request.TakeBody()
	}
	return c.ex.Request.Body
}

// RemoteAddr is the client's address.
func (c *Ctx) RemoteAddr() net.Addr { return c.ex.RemoteAddr() }

// Status sets the response status without sending anything yet.
func (c *Ctx) Status(code int) *Ctx {
	c.ex.Status = code
	c.responded = true
	return c
}

// SetHeader sets a response header, replacing earlier values. A name or
// value that could break the response's framing (CR, LF, NUL, a non-token
// name) is refused: the response becomes a 500 and the error is logged.
func (c *Ctx) SetHeader(name, value string) *Ctx {
	if err := c.ex.Header.Set(name, value); err != nil && c.headerErr == nil {
		c.headerErr = fmt.Errorf("gwist: header %q: %w", name, err)
	}
	return c
}

// AddHeader adds a response header value, keeping earlier ones.
func (c *Ctx) AddHeader(name, value string) *Ctx {
	if err := c.ex.Header.Add(name, value); err != nil && c.headerErr == nil {
		c.headerErr = fmt.Errorf("gwist: header %q: %w", name, err)
	}
	return c
}

// ResponseHeader returns the value of a response header set so far.
func (c *Ctx) ResponseHeader(name string) string { return c.ex.Header.Get(name) }

// Write appends p to the response body (status 200 unless set), so a Ctx is
// an io.Writer. A response without a Content-Type (and without a
// Content-Encoding) gets the one http.DetectContentType gives its first
// 512 bytes, as net/http sends: JSON bytes written without a type go out
// as "text/plain; charset=utf-8", an HTML page as "text/html;
// charset=utf-8" (set a Content-Type to send another; handlers that set
// one pay nothing for this). Once the handler has called Flush, or written more than the
// stream threshold (WithStreamThreshold, 32 KiB), the response streams: the
// head has gone out and each Write sends its bytes (chunked on HTTP/1.1
// unless the handler set a Content-Length, until the close for HTTP/1.0),
// blocking while more than WithMaxStreamQueued waits for a slow client. It
// fails with ErrClientGone once the client has left, and ErrBodyLength
// past a declared Content-Length. A header that SetHeader refused is
// returned here before anything is sent. When a middleware replaced the
// body writer (SetWriter), p goes through it.
func (c *Ctx) Write(p []byte) (int, error) {
	if c.typeState != typeDecided {
		if n, done, err := c.sniffWrite(p); done {
			return n, err
		}
	}
	if c.w != nil {
		c.responded = true
		return c.w.Write(p)
	}
	return c.rawWrite(p)
}

// Flush sends the response's head, if not yet sent, and the body written so
// far, and makes the response stream (see Write): the status and headers
// are fixed from then on, and an error the handler returns afterwards
// aborts the body (the connection is closed mid-response) instead of
// producing an error response. Handlers run on the event loop
// (WithInline) never stream: Flush returns ErrInlineStreaming and the
// response is sent whole when the handler returns. When a middleware
// replaced the body writer (SetWriter), Flush goes through it.
func (c *Ctx) Flush() error {
	if c.typeState == typePending {
		if err := c.endSniff(); err != nil {
			return err
		}
	}
	if c.w != nil {
		return c.w.Flush()
	}
	return c.rawFlush()
}

// SetTrailer sets a trailer field, sent after the body. Trailers need
// chunked framing: a streamed HTTP/1.1 response without Content-Length, or
// a buffered one (sent chunked to carry them). HTTP/1.0 clients get none.
// Announcing them with a "Trailer" header before the head goes out is the
// handler's choice.
func (c *Ctx) SetTrailer(name, value string) *Ctx {
	if err := c.ex.Trailer.Set(name, value); err != nil && c.headerErr == nil {
		c.headerErr = fmt.Errorf("gwist: trailer %q: %w", name, err)
	}
	return c
}

// addTrailer adds a value to a trailer field (SetTrailer replaces them).
func (c *Ctx) addTrailer(name, value string) {
	if err := c.ex.Trailer.Add(name, value); err != nil && c.headerErr == nil {
		c.headerErr = fmt.Errorf("gwist: trailer %q: %w", name, err)
	}
}

// String answers with status code and s as text/plain.
func (c *Ctx) String(code int, s string) error {
	c.setContentType("text/plain; charset=utf-8")
	c.Status(code)
	return c.setBody(s)
}

// Bytes answers with status code, the given Content-Type and b.
func (c *Ctx) Bytes(code int, contentType string, b []byte) error {
	if contentType != "" {
		c.SetHeader("Content-Type", contentType)
	}
	c.Status(code)
	return c.setBody(bytesToString(b))
}

// JSON answers with status code and v encoded as JSON.
func (c *Ctx) JSON(code int, v any) error {
	e := jsonEncoders.Get().(*jsonEncoder)
	defer e.release()
	if err := e.enc.Encode(v); err != nil { // the bytes json.Marshal gives, and a newline
		return fmt.Errorf("gwist: encoding JSON response: %w", err)
	}
	c.setContentType("application/json")
	c.Status(code)
	return c.setBody(bytesToString(e.buf))
}

// NoContent answers with status code and no body.
func (c *Ctx) NoContent(code int) error {
	c.Status(code)
	return c.setBody("")
}

// Redirect answers with a redirect (code must be 3xx) to location.
func (c *Ctx) Redirect(code int, location string) error {
	if code < 300 || code > 399 {
		return fmt.Errorf("gwist: redirect status %d is not 3xx", code)
	}
	if !http1.ValidHeaderValue(location) || location == "" {
		return errors.New("gwist: invalid redirect location")
	}
	c.SetHeader("Location", location)
	c.Status(code)
	return c.setBody("")
}

func (c *Ctx) setContentType(ct string) {
	if c.ex.Header.Get("Content-Type") == "" {
		_ = c.ex.Header.Set("Content-Type", ct)
	}
}
