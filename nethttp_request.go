package gwist

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
)

// httpRequest builds the *http.Request that WrapHandler and WrapMiddleware
// give net/http code: a copy of the request (its strings may be kept), with
// ctx as its context, the protocol it came on (HTTP/1.0, HTTP/1.1 or
// HTTP/2.0), the body as a reader, RemoteAddr, TLS, RequestURI, Pattern
// (the route) and the route's parameters as path values (r.PathValue("id")
// for a route "/users/:id" or "/users/{id}"). On a route whose body streams
// the body is read as it arrives (requestBody), returned second so that its
// reads can be ended when the handler returns; nil otherwise.
func (c *Ctx) httpRequest(ctx context.Context) (*http.Request, *requestBody, error) {
	var body []byte
	streamed := c.ex.StreamedBody()
	if !streamed {
		body = c.Body() // first: Request then shares the body instead of copying it
	}
	req := c.Request()
	u, err := url.ParseRequestURI(req.Target)
	if err != nil {
		return nil, nil, NewHTTPError(http.StatusBadRequest, "")
	}
	r := &http.Request{
		Method:     req.Method,
		URL:        u,
		Proto:      "HTTP/1." + strconv.Itoa(req.ProtoMinor),
		ProtoMajor: 1,
		ProtoMinor: req.ProtoMinor,
		Header:     make(http.Header, len(req.Headers)),
		Host:       req.Host,
		RequestURI: req.Target,
		Close:      !req.KeepAlive,
		TLS:        c.TLS(),
		Pattern:    c.route,
	}
	if req.ProtoMajor == 2 {
		r.Proto, r.ProtoMajor, r.ProtoMinor, r.Close = "HTTP/2.0", 2, 0, false
	}
	if r.Host == "" {
		r.Host = u.Host
	}
	if ra := c.RemoteAddr(); ra != nil {
		r.RemoteAddr = ra.String()
	}
	for _, f := range req.Headers {
		key := textproto.CanonicalMIMEHeaderKey(f.Name)
		if key != "Host" { // net/http keeps it in r.Host only
			r.Header[key] = append(r.Header[key], f.Value)
		}
	}
	if len(req.Trailers) > 0 {
		r.Trailer = make(http.Header, len(req.Trailers))
		for _, f := range req.Trailers {
			key := textproto.CanonicalMIMEHeaderKey(f.Name)
			r.Trailer[key] = append(r.Trailer[key], f.Value)
		}
	}
	if req.Chunked {
		r.TransferEncoding = []string{"chunked"}
	}
	var rb *requestBody
	switch {
	case streamed:
		r.ContentLength = req.ContentLength
		rb = &requestBody{c: c, limit: c.bodyLimit()}
		r.Body = rb
	case len(body) == 0:
		r.Body = http.NoBody
	default:
		r.ContentLength = int64(len(body))
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	for _, p := range c.params {
		r.SetPathValue(p.Key, c.Param(p.Key))
	}
	r = r.WithContext(ctx)
	if rb != nil {
		rb.r = r
	}
	return r, rb, nil
}

// bodyLimit is the limit on the request's body: its route's StreamBody
// limit, or WithMaxBodyBytes (0: none).
func (c *Ctx) bodyLimit() int64 {
	if i := c.routeIndex; i >= 0 && i < len(c.app.routes) && c.app.routes[i].stream {
		return c.app.routes[i].streamMax
	}
	return c.app.maxBodyBytes()
}
