package gwist

import (
	"context"
	"errors"
	"net/http"
	"reflect"
)

// WrapHandler mounts a net/http handler (net/http/pprof, promhttp, an
// http.FileServer, a grpc.Server, connect-go's handlers, any library's
// handler) on a gwist route.
//
// The handler gets a real *http.Request: RemoteAddr, Host, Header, URL,
// RequestURI, TLS (c.TLS(), set on TLS listeners) and ContentLength are
// filled in, Proto is the protocol the request came on ("HTTP/2.0",
// ProtoMajor 2, over h2 and h2c), Pattern is the route, and the route's
// parameters are path values: r.PathValue("id") on "/users/:id" or
// "/users/{id}". The request is a copy: the handler may keep it. Its
// context has c.Context()'s values and deadline while the handler runs and
// is cancelled when the client leaves, the connection closes, or the
// handler returns (as net/http's is): goroutines that outlive the handler
// may hold it.
//
// The body streams: the route reads its body as a Group.StreamBody route
// does (the handler runs once the head has arrived; r.Body reads the bytes
// as they come), within the route's StreamBody limit or WithMaxBodyBytes. A
// body over the limit fails the read with an error that is both an
// *http.MaxBytesError and the 413 *HTTPError (ErrBodyTooLarge). r.Body may
// be read from any goroutine until the handler returns (its reads end then;
// Close ends them earlier), and while the response is written: always on
// HTTP/2, and on HTTP/1.x after http.ResponseController.EnableFullDuplex;
// without it, as net/http, the body is closed once the response's head
// goes out.
//
// Its http.ResponseWriter writes through the Ctx: the status and headers at
// WriteHeader (a Write without it is a 200), the body through the Ctx's body
// writer (so gwist middleware such as gzip see it), buffered and sent with a
// Content-Length, or streaming once the handler flushes (it implements
// http.Flusher, and http.NewResponseController(w).Flush works) or writes
// past WithStreamThreshold. As in net/http: the header map is fixed at
// WriteHeader (trailers excepted: declared with "Trailer" or set with
// http.TrailerPrefix, every value of each, over HTTP/1.1 and HTTP/2);
// without a Content-Type the first 512 bytes are sniffed with
// http.DetectContentType; a HEAD request's body is dropped and its
// Content-Length is the body's when the response did not stream; 204 and
// 304 refuse writes (http.ErrBodyNotAllowed). Not supported: 1xx interim
// responses (WriteHeader(1xx) is ignored), Hijack (no WebSocket through a
// wrapped handler), and read and write deadlines (http.ResponseController
// returns http.ErrNotSupported). A panic with http.ErrAbortHandler cuts
// the response off, as in net/http (HTTP/2: RST_STREAM; HTTP/1.x: the
// connection closes before the body's end, or without a response before
// its head went out); other panics are the App's (500 through the error
// handler).
//
// Cost: a copy of the request (Request), the http.Request and its header
// map, its context, and the ResponseWriter: about 25 allocations for a GET
// with three headers and a path parameter, the handler's own included
// (19 before the handler had a context of its own), plus the body's reader
// when there is a body.
func WrapHandler(h http.Handler) HandlerFunc {
	if h == nil {
		panic("gwist: WrapHandler(nil)")
	}
	return (&netHandler{h: h}).serve
}

// netHandler is a handler WrapHandler made. Its route is told by the code
// of the method value (isNetHTTPRoute), as WebSocket routes are (ws.go):
// such a route's body streams.
type netHandler struct{ h http.Handler }

// netHandlerPC is the code of the handlers WrapHandler returns.
var netHandlerPC = reflect.ValueOf((&netHandler{}).serve).Pointer()

// isNetHTTPRoute reports whether h was made by WrapHandler.
func isNetHTTPRoute(h HandlerFunc) bool { return reflect.ValueOf(h).Pointer() == netHandlerPC }

func (n *netHandler) serve(c *Ctx) (err error) {
	scope := c.newNetContext(nil)
	r, body, err := c.httpRequest(scope)
	if err != nil {
		scope.end()
		return err
	}
	w := newResponseWriter(c, body)
	defer func() {
		if body != nil {
			body.finish() // nothing reads the body once the handler returned
		}
		scope.end() // nor reaches the Ctx through the context
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler { //nolint:errorlint // net/http compares it so too
				panic(p)
			}
			err = c.abortResponse()
		}
	}()
	n.h.ServeHTTP(w, r)
	return w.finish()
}

// WrapHandlerFunc is WrapHandler for a function.
func WrapHandlerFunc(f func(http.ResponseWriter, *http.Request)) HandlerFunc {
	return WrapHandler(http.HandlerFunc(f))
}

// errHandlerAborted is what a wrapped handler's panic(http.ErrAbortHandler)
// becomes on an App that cannot stream (WithInline): a 500.
var errHandlerAborted = errors.New("gwist: net/http handler aborted (http.ErrAbortHandler)")

// abortResponse handles net/http's http.ErrAbortHandler as net/http does:
// the response is cut off, never complete (HTTP/2: RST_STREAM; HTTP/1.x:
// the connection closes without completing it, or, before the head went
// out, without sending anything); where nothing can stream (WithInline)
// the abandoned response becomes a 500.
func (c *Ctx) abortResponse() error {
	if !c.ex.Streaming() && c.ex.Hangup() {
		return nil // nothing sent: HTTP/1 closes the connection, HTTP/2 resets the stream
	}
	if !c.ex.Streaming() && c.ex.CanStream() {
		c.SetHeader("Connection", "close")
		if c.ex.Status == 0 {
			c.ex.Status = http.StatusInternalServerError
		}
		_ = c.ex.Flush()
	}
	if c.ex.Streaming() {
		c.ex.AbortStream()
		return nil
	}
	c.ResetResponse()
	c.SetHeader("Connection", "close")
	return &HTTPError{Code: http.StatusInternalServerError, Err: errHandlerAborted}
}

// WrapMiddleware runs net/http middleware (func(http.Handler) http.Handler:
// rs/cors, chi's middleware, gorilla/handlers, your own) as a gwist
// Middleware, in the place where it is added (App.Use, a group, a route)
// like any other.
//
// The middleware gets the *http.Request and http.ResponseWriter that
// WrapHandler describes. What it does is honoured: headers it sets on
// w.Header() before calling next are in the gwist response; when it
// answers without calling next, its answer is the response (as from a
// wrapped handler); when it calls next with a request whose context it
// replaced (r.WithContext: values, a deadline), c.Context() is that context
// for the rest of the chain; when it answers after next (chi's
// middleware.Timeout writes 504 once its deadline passed) and the gwist
// handler returned that context's error or wrote nothing, its answer is the
// response; when it calls next with a ResponseWriter of its
// own (to record the status, compress, ...), the gwist handler's status,
// headers and body go through that writer (the status at the first body
// byte, Flush or the handler's return). Not seen by gwist: other changes to
// the request (its headers, URL or RemoteAddr); the gwist handler reads the
// request it received. Errors the handlers return are answered by the error
// handler inside next, so the middleware sees the answer, and are returned
// to the gwist middleware outside.
//
// The middleware function runs once per route when the App starts, as
// net/http middleware is built once. Cost per request: WrapHandler's, plus a
// context value.
func WrapMiddleware(mw func(http.Handler) http.Handler) Middleware {
	if mw == nil {
		panic("gwist: WrapMiddleware(nil)")
	}
	return func(next HandlerFunc) HandlerFunc {
		h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			call, _ := r.Context().Value(mwCallKey{}).(*mwCall)
			if call == nil {
				// The middleware gave next a context not derived from
				// the request's: the Ctx cannot be found from it.
				http.Error(w, "gwist: WrapMiddleware: the request's context was replaced by one not derived from it", http.StatusInternalServerError)
				return
			}
			call.next(w, r, next)
		}))
		if h == nil {
			panic("gwist: WrapMiddleware: the middleware returned a nil handler")
		}
		return func(c *Ctx) (err error) {
			call := &mwCall{c: c}
			scope := c.newNetContext(call)
			call.ctx = scope
			r, body, err := c.httpRequest(call.ctx)
			if err != nil {
				scope.end()
				return err
			}
			call.w = newResponseWriter(c, body)
			defer func() {
				if body != nil {
					body.finish()
				}
				scope.end()
				if p := recover(); p != nil {
					if p != http.ErrAbortHandler { //nolint:errorlint
						panic(p)
					}
					err = c.abortResponse()
				}
			}()
			h.ServeHTTP(call.w, r)
			if call.deferred {
				if !call.w.wrote {
					return call.err // the middleware did not answer: the error handler does
				}
				call.err = nil // the middleware answered it (chi's Timeout: 504)
			}
			if err := call.w.finish(); err != nil && call.err == nil {
				return err
			}
			return call.err
		}
	}
}

// mwCallKey is the context key of a WrapMiddleware call.
type mwCallKey struct{}

// mwCall is one request through a WrapMiddleware.
type mwCall struct {
	c   *Ctx
	ctx context.Context
	w   *responseWriter
	err error // what next returned
	// deferred: next failed with the error of the context the middleware
	// gave it (its deadline passed: chi's middleware.Timeout), and nothing
	// had streamed: the middleware answers, as a net/http handler that
	// returned on its context leaves the response to it.
	deferred bool
}

// next runs the gwist chain inside the net/http middleware.
func (m *mwCall) next(w http.ResponseWriter, r *http.Request, next HandlerFunc) {
	c := m.c
	if ctx := r.Context(); ctx != m.ctx {
		prev := c.ctx
		c.SetContext(ctx)
		defer func() { c.ctx = prev }()
	}
	aw := m.w
	aw.pushHeader() // what the middleware set before calling next
	if w == http.ResponseWriter(aw) {
		m.err = next(c)
		switch {
		case m.err != nil && r.Context().Err() != nil && errors.Is(m.err, r.Context().Err()) && !c.ex.Streaming():
			// The answer to the context's error is the middleware's to give.
			c.ResetResponse()
			m.deferred = true
			aw.pullHeader()
		case m.err == nil && !c.responded && !c.ex.Streaming() && len(c.ex.Body) == 0:
			// Nothing was written: the middleware may still answer, as
			// after a net/http handler that wrote nothing.
			aw.pullHeader()
		default:
			aw.answered()
		}
		return
	}
	// The middleware wrapped the writer: the gwist side writes through it.
	fw := &forwardWriter{c: c, w: w}
	prev := c.w
	c.SetWriter(fw)
	m.err = next(c)
	fw.start()
	c.w = prev
	aw.answered()
}

// answered marks the response as written by the gwist chain: a middleware
// writing after next appends to its body.
func (w *responseWriter) answered() {
	w.wrote, w.sniff, w.pending = true, false, nil
	w.status = w.c.ResponseStatus()
}

// forwardWriter is the body writer of a gwist chain that runs inside a
// net/http middleware that wrapped the ResponseWriter: the chain's head and
// body go to that writer.
type forwardWriter struct {
	c       *Ctx
	w       http.ResponseWriter
	started bool
}

// start hands the chain's status and headers to the wrapping writer.
func (f *forwardWriter) start() {
	if f.started {
		return
	}
	f.started = true
	h := f.w.Header()
	clear(h)
	for _, fl := range f.c.ex.Header.Fields() {
		h.Add(fl.Name, fl.Value)
	}
	f.w.WriteHeader(f.c.ResponseStatus())
}

// Write sends p through the wrapping writer.
func (f *forwardWriter) Write(p []byte) (int, error) {
	f.start()
	return f.w.Write(p)
}

// Flush flushes the wrapping writer, when it can.
func (f *forwardWriter) Flush() error {
	f.start()
	err := http.NewResponseController(f.w).Flush()
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	return err
}
