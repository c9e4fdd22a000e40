package gwist

import (
	"errors"
	"io"
	"net/http"
	"net/textproto"
	"sync"
	"sync/atomic"
)

// requestBody is the Body of the *http.Request that WrapHandler and
// WrapMiddleware give net/http code on a route whose body streams (every
// WrapHandler route, and Group.StreamBody routes): it reads the engine's
// streamed body (the one request-body pipe) as the bytes arrive, from any
// goroutine, as net/http's body may be read (grpc-go reads it on a
// goroutine of its own). Reads are one at a time; Close ends them, a Read
// blocked in the pipe included, and waits until none runs, so that nothing
// reads the body once the wrapped handler has returned (the Ctx and its
// Exchange are then another request's).
type requestBody struct {
	c     *Ctx
	limit int64 // the route's body limit, for http.MaxBytesError; 0: none

	mu     sync.Mutex // held by a Read while it runs
	closed atomic.Bool
	r      *http.Request // the handler's request: its Trailer gets the trailers
	read   int64         // bytes read; under mu
	err    error         // sticky: the body's end or failure; under mu
}

// errBodyReadAfterClose is net/http's answer to a Read on a closed body
// (the handler closed it, returned, or wrote its response's head on
// HTTP/1.1 without http.ResponseController.EnableFullDuplex).
var errBodyReadAfterClose = errors.New("http: invalid Read on closed Body")

// Read reads the next bytes of the body as they arrive; see requestBody.
func (b *requestBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errBodyReadAfterClose
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed.Load() {
		return 0, errBodyReadAfterClose
	}
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.c.ex.ReadBody(p)
	b.read += int64(n)
	switch {
	case err == nil:
	case b.closed.Load():
		err = errBodyReadAfterClose // closed while this Read waited
	case err == io.EOF:
		b.setTrailers()
		b.err = err
	default:
		err = b.wrap(fromEngine(err))
		b.err = err
	}
	return n, err
}

// Close ends the body's reads (a Read waiting in it returns at once); the
// engine discards what is left. It waits until no Read runs.
func (b *requestBody) Close() error {
	b.closed.Store(true)
	b.c.ex.CloseBody()
	b.mu.Lock()
	//nolint:staticcheck // an empty critical section: wait for a running Read
	b.mu.Unlock()
	return nil
}

// finish runs on the handler's goroutine once the wrapped handler has
// returned: no Read may run after it, and the bytes read count as the
// request's (Observation.BytesIn).
func (b *requestBody) finish() {
	_ = b.Close()
	b.c.bodyRead += b.read
}

// setTrailers fills the request's Trailer with the body's trailers, at its
// end (net/http's rule: r.Trailer is complete once Body returned io.EOF).
// Called with mu held.
func (b *requestBody) setTrailers() {
	tr := b.c.ex.Request.Trailers
	if len(tr) == 0 || b.r == nil {
		return
	}
	if b.r.Trailer == nil {
		b.r.Trailer = make(http.Header, len(tr))
	}
	for _, f := range tr {
		key := textproto.CanonicalMIMEHeaderKey(f.Name)
		b.r.Trailer[key] = append(b.r.Trailer[key], f.Value)
	}
}

// wrap gives a failed Read the error a net/http handler expects: over the
// route's limit, an *http.MaxBytesError (as http.MaxBytesReader returns)
// that is also the 413 *HTTPError and ErrBodyTooLarge; the others as
// BodyReader returns them.
func (b *requestBody) wrap(err error) error {
	if errors.Is(err, ErrBodyTooLarge) {
		return &bodyTooLarge{http: bodyHTTPError(err), max: &http.MaxBytesError{Limit: b.limit}}
	}
	return bodyHTTPError(err)
}

// bodyTooLarge is a streamed body over its route's limit, as a wrapped
// handler sees it.
type bodyTooLarge struct {
	http error
	max  *http.MaxBytesError
}

func (e *bodyTooLarge) Error() string   { return e.max.Error() }
func (e *bodyTooLarge) Unwrap() []error { return []error{e.http, e.max} }

// cutForResponse closes the body as net/http does when a response's head
// goes out on HTTP/1.x before the body was read and full duplex was not
// asked for: later Reads fail. It does not wait for a Read that runs (the
// handler's own goroutine may be the writer).
func (b *requestBody) cutForResponse() {
	if b.closed.Load() {
		return
	}
	b.closed.Store(true)
	b.c.ex.CloseBody()
}
