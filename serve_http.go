package gwist

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"strconv"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/http1"
)

// ServeHTTP makes the App an http.Handler: a request from a net/http
// server (httptest.NewServer, http.Server, a ServeMux it is mounted on) or
// a direct call with an httptest.ResponseRecorder goes through the same
// app-level middleware, router, route middleware, error handler and
// handlers as on gwist's own listeners, without the event loop.
//
// The body is read in full before routing, bounded by WithMaxBodyBytes
// (413 beyond it, like the engine's answer). c.Context() is r.Context() (its
// values included), c.RemoteAddr() is r.RemoteAddr, c.TLS() is r.TLS.
// Responses are buffered and sent with a Content-Length unless the handler
// streams (Flush, or Writes past WithStreamThreshold): then the head goes to
// w and every Write is written and flushed at once, so Ctx.SSE and streamed
// bodies arrive as they are produced. Trailers are sent as net/http
// trailers. A streamed response cut off by a failure mid-way (the engine
// would close the connection) panics with http.ErrAbortHandler, net/http's
// way to abort a response, unless the client has already gone.
//
// Ctx.SSEFeed works when w can flush: once the handlers have returned,
// ServeHTTP writes the feed on net/http's goroutine until it ends (without
// Flush it returns ErrFeedNeedsLoop). A WebSocket route takes the
// connection over when w can Hijack it (HTTP/1.x), else it answers 501.
// Not available here: the engine's timeouts, connection limits and worker
// pool (net/http's server runs the handler on its own goroutine), and
// sendfile (files are copied through w).
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := a.optionsErr(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	a.freeze()
	s := &responseSink{w: w, r: r}
	ex := engine.NewSinkExchange(r.Context(), remoteAddr(r.RemoteAddr), r.TLS, s, a.cfg.engine.StreamThreshold)
	defer engine.ReleaseSinkExchange(ex)
	if code, err := readRequest(&ex.Request, r, a.maxBodyBytes()); code != 0 {
		// Answered through the App, as the engine's refusals are: the
		// error handler, and the middleware around routing.
		w.Header().Set("Connection", "close")
		ex.RefuseSink(code, err)
	}
	a.serve(ex)
	if s.upgrade != nil && ex.Status == http.StatusSwitchingProtocols && len(ex.Body) == 0 && !ex.Streaming() {
		a.serveWebSocket(s, ex) // a WebSocket handshake was accepted
		return
	}
	s.finish(ex)
	if s.feed != nil { // an SSEFeed: written here until it ends
		s.feed.run(s, a.sseHeartbeat(), a.Draining())
	}
}

// readRequest fills req from r, reading r's body (at most maxBody bytes).
// It returns the status of a failure (400, 413) and why, or 0.
func readRequest(req *http1.Request, r *http.Request, maxBody int64) (int, error) {
	req.Method = r.Method
	req.Path = r.URL.EscapedPath()
	req.RawQuery = r.URL.RawQuery
	req.Target = r.RequestURI
	if req.Target == "" {
		req.Target = r.URL.RequestURI()
	}
	req.ProtoMajor, req.ProtoMinor = 1, 1
	if r.ProtoMajor == 1 {
		req.ProtoMinor = r.ProtoMinor
	}
	req.Host = r.Host
	req.KeepAlive = !r.Close
	n := 1
	for _, vs := range r.Header {
		n += len(vs)
	}
	req.Headers = make([]http1.HeaderField, 0, n)
	if r.Host != "" {
		req.Headers = append(req.Headers, http1.HeaderField{Name: "Host", Value: r.Host})
	}
	for name, vs := range r.Header {
		for _, v := range vs {
			req.Headers = append(req.Headers, http1.HeaderField{Name: name, Value: v})
		}
	}
	if r.ContentLength > maxBody {
		return http.StatusRequestEntityTooLarge, ErrBodyTooLarge
	}
	req.ContentLength = max(r.ContentLength, 0)
	if r.Body == nil || r.Body == http.NoBody {
		return 0, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	switch {
	case int64(len(body)) > maxBody:
		return http.StatusRequestEntityTooLarge, ErrBodyTooLarge
	case err != nil:
		return http.StatusBadRequest, err
	}
	if len(body) > 0 {
		req.Body = body
		req.ContentLength = int64(len(body))
	}
	if r.ContentLength < 0 {
		req.Chunked = true
	}
	for name, vs := range r.Trailer {
		for _, v := range vs {
			req.Trailers = append(req.Trailers, http1.HeaderField{Name: name, Value: v})
		}
	}
	return 0, nil
}

// remoteAddr parses a net/http RemoteAddr ("ip:port"); another form is
// kept as a string.
func remoteAddr(s string) net.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return net.TCPAddrFromAddrPort(ap)
	}
	return stringAddr(s)
}

// stringAddr is a remote address that is not ip:port.
type stringAddr string

func (a stringAddr) Network() string { return "tcp" }
func (a stringAddr) String() string  { return string(a) }

// responseSink is the engine.Sink of ServeHTTP: the response goes to w.
type responseSink struct {
	w    http.ResponseWriter
	r    *http.Request
	feed *sinkFeed // an SSEFeed the handler opened (sse_feed_sink.go)
	// upgrade: the WebSocket handshake the handler accepted (ws_nethttp.go)
	upgrade *engine.WSUpgrade
}

// StartStream sends the head of a response that streams.
func (s *responseSink) StartStream(ex *engine.Exchange) error {
	s.copyHeader(ex, true)
	s.w.WriteHeader(statusOf(ex))
	return nil
}

// WriteBody writes p and flushes it: a streamed Write is sent at once.
func (s *responseSink) WriteBody(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err == nil {
		err = s.FlushBody()
	}
	return n, s.sinkError(err)
}

// FlushBody flushes w when it can.
func (s *responseSink) FlushBody() error {
	err := http.NewResponseController(s.w).Flush()
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	return s.sinkError(err)
}

// sinkError maps w's errors to gwist's: ErrClientGone once the request's
// context is done, ErrBodyLength past the declared Content-Length.
func (s *responseSink) sinkError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, http.ErrContentLength):
		return ErrBodyLength
	case s.r.Context().Err() != nil:
		return ErrClientGone
	}
	return err
}

// finish sends a response that did not stream, or ends one that did.
func (s *responseSink) finish(ex *engine.Exchange) {
	if ex.Streaming() {
		if ex.SinkAborted() {
			if s.r.Context().Err() == nil {
				panic(http.ErrAbortHandler) // cut it off: net/http closes the connection
			}
			return
		}
		s.copyTrailers(ex)
		return
	}
	status := statusOf(ex)
	s.copyHeader(ex, false)
	trailers := ex.Trailer.Fields()
	if len(trailers) == 0 && bodyAllowedForStatus(status) {
		s.w.Header().Set("Content-Length", strconv.Itoa(len(ex.Body)))
	}
	s.w.WriteHeader(status)
	if len(ex.Body) > 0 && bodyAllowedForStatus(status) && ex.Request.Method != http.MethodHead {
		_, _ = s.w.Write(ex.Body)
	}
	s.copyTrailers(ex)
}

// copyHeader puts the handler's header fields into w's, replacing fields
// of the same name that w had (set by net/http middleware outside the
// App). Transfer-Encoding is net/http's; so is Content-Length of a
// buffered response (finish sets it).
func (s *responseSink) copyHeader(ex *engine.Exchange, streaming bool) {
	h := s.w.Header()
	fields := ex.Header.Fields()
	for i, f := range fields {
		key := textproto.CanonicalMIMEHeaderKey(f.Name)
		switch key {
		case "Transfer-Encoding":
			continue
		case "Content-Length":
			if !streaming {
				continue
			}
		}
		if !seenBefore(fields[:i], f.Name) {
			delete(h, key)
		}
		h[key] = append(h[key], f.Value)
	}
}

// copyTrailers hands the handler's trailers to net/http.
func (s *responseSink) copyTrailers(ex *engine.Exchange) {
	if fields := ex.Trailer.Fields(); len(fields) > 0 {
		h := s.w.Header()
		for _, f := range fields {
			h.Add(http.TrailerPrefix+f.Name, f.Value)
		}
	}
}

// seenBefore reports whether a field named name is in fields.
func seenBefore(fields []http1.HeaderField, name string) bool {
	for _, f := range fields {
		if len(f.Name) == len(name) && textproto.CanonicalMIMEHeaderKey(f.Name) == textproto.CanonicalMIMEHeaderKey(name) {
			return true
		}
	}
	return false
}

// statusOf is the response status to send (200 when unset, 500 when out
// of range, as on gwist's own connections).
func statusOf(ex *engine.Exchange) int {
	switch st := ex.Status; {
	case st == 0:
		return http.StatusOK
	case st < 100 || st > 999:
		return http.StatusInternalServerError
	default:
		return st
	}
}

// bodyAllowedForStatus reports whether a response with status may have a
// body (RFC 9110: not 1xx, 204 or 304).
func bodyAllowedForStatus(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}
