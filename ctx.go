package gwist

import (
	"bytes"
	"context"
	"encoding/json"
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
// not keep a Ctx, or strings and slices taken from it, after the handler
// returns.
type Ctx struct {
	app       *App
	ex        *engine.Exchange
	bodyBuf   bytes.Reader // BodyReader on a buffered body
	params    router.Params
	route     string
	responded bool
	headerErr error
	form      *formState // parsed form (form.go)
}

func (c *Ctx) reset(a *App, ex *engine.Exchange) {
	c.app, c.ex = a, ex
	c.params = c.params[:0]
	c.route = ""
	c.responded = false
	c.headerErr = nil
	c.releaseForm()
	c.bodyBuf.Reset(nil) // do not pin the previous request's body
}

// Method is the request method.
func (c *Ctx) Method() string { return c.ex.Request.Method }

// Path is the request path, without the query, as sent (not decoded).
func (c *Ctx) Path() string { return c.ex.Request.Path }

// Route is the pattern of the matched route ("" when none matched).
func (c *Ctx) Route() string { return c.route }

// Param returns the path parameter name, percent-decoded ("" when absent).
func (c *Ctx) Param(name string) string {
	v := c.params.Get(name)
	if strings.IndexByte(v, '%') >= 0 {
		if d, err := url.PathUnescape(v); err == nil {
			return d
		}
	}
	return v
}

// Query returns the first value of the query parameter name, decoded, or ""
// when absent.
func (c *Ctx) Query(name string) string {
	q := c.ex.Request.RawQuery
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k != name {
			dk, err := url.QueryUnescape(k)
			if err != nil || dk != name {
				continue
			}
		}
		if d, err := url.QueryUnescape(v); err == nil {
			return d
		}
		return v
	}
	return ""
}

// Header returns the first value of the request header name
// (case-insensitive), or "".
func (c *Ctx) Header(name string) string { return c.ex.Request.Header(name) }

// Request gives the parsed request, for what the helpers above do not cover
// (all headers, the target, the protocol version, trailers).
func (c *Ctx) Request() *http1.Request { return &c.ex.Request }

// Body is the request body, already read in full and bounded by
// WithMaxBodyBytes. On a route that streams its body (Group.StreamBody) it
// is nil: read the body with BodyReader there.
func (c *Ctx) Body() []byte { return c.ex.Request.Body }

// Context returns a context cancelled when the client goes away or the
// server force-closes the connection.
func (c *Ctx) Context() context.Context { return c.ex.Context() }

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
// an io.Writer. Once the handler has called Flush, or written more than the
// stream threshold (WithStreamThreshold, 32 KiB), the response streams: the
// head has gone out and each Write sends its bytes (chunked on HTTP/1.1
// unless the handler set a Content-Length, until the close for HTTP/1.0),
// blocking while more than WithMaxStreamQueued waits for a slow client. It
// fails with ErrClientGone once the client has left, and ErrBodyLength
// past a declared Content-Length. A header that SetHeader refused is
// returned here before anything is sent.
func (c *Ctx) Write(p []byte) (int, error) {
	if c.headerErr != nil && !c.ex.Streaming() {
		return 0, c.headerErr
	}
	c.responded = true
	return c.ex.Write(p)
}

// Flush sends the response's head, if not yet sent, and the body written so
// far, and makes the response stream (see Write): the status and headers
// are fixed from then on, and an error the handler returns afterwards
// aborts the body (the connection is closed mid-response) instead of
// producing an error response. Handlers run on the event loop
// (WithInline) never stream: Flush returns ErrInlineStreaming and the
// response is sent whole when the handler returns.
func (c *Ctx) Flush() error {
	if c.headerErr != nil && !c.ex.Streaming() {
		return c.headerErr
	}
	err := c.ex.Flush()
	if c.ex.Streaming() {
		c.responded = true
	}
	return err
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

// String answers with status code and s as text/plain.
func (c *Ctx) String(code int, s string) error {
	c.setContentType("text/plain; charset=utf-8")
	c.Status(code)
	c.ex.Body = append(c.ex.Body[:0], s...)
	return nil
}

// Bytes answers with status code, the given Content-Type and b.
func (c *Ctx) Bytes(code int, contentType string, b []byte) error {
	if contentType != "" {
		c.SetHeader("Content-Type", contentType)
	}
	c.Status(code)
	c.ex.Body = append(c.ex.Body[:0], b...)
	return nil
}

// JSON answers with status code and v encoded as JSON.
func (c *Ctx) JSON(code int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("gwist: encoding JSON response: %w", err)
	}
	c.setContentType("application/json")
	c.Status(code)
	c.ex.Body = append(append(c.ex.Body[:0], b...), '\n')
	return nil
}

// NoContent answers with status code and no body.
func (c *Ctx) NoContent(code int) error {
	c.Status(code)
	c.ex.Body = c.ex.Body[:0]
	return nil
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
	c.ex.Body = c.ex.Body[:0]
	return nil
}

func (c *Ctx) setContentType(ct string) {
	if c.ex.Header.Get("Content-Type") == "" {
		_ = c.ex.Header.Set("Content-Type", ct)
	}
}
