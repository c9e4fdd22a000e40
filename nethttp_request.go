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
// ctx as its context, the body as a reader, RemoteAddr, TLS, RequestURI,
// Pattern (the route) and the route's parameters as path values
// (r.PathValue("id") for a route "/users/:id" or "/users/{id}").
func (c *Ctx) httpRequest(ctx context.Context) (*http.Request, error) {
	body := c.Body() // first: Request then shares the body instead of copying it
	req := c.Request()
	u, err := url.ParseRequestURI(req.Target)
	if err != nil {
		return nil, NewHTTPError(http.StatusBadRequest, "")
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
	r.ContentLength = int64(len(body))
	if req.Chunked {
		r.TransferEncoding = []string{"chunked"}
	}
	if len(body) == 0 {
		r.Body = http.NoBody
	} else {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	for _, p := range c.params {
		r.SetPathValue(p.Key, c.Param(p.Key))
	}
	return r.WithContext(ctx), nil
}
