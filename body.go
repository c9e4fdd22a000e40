package gwist

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/router"
)

// Errors from a streamed request body's Read (see Group.StreamBody). All
// but ErrBodyAborted come wrapped in an *HTTPError with the status they call
// for, so a handler that returns one answers with that status; test for them
// with errors.Is.
var (
	// ErrBodyAborted: the client went away (or the server closed the
	// connection) before the body's end; the request's context is done.
	ErrBodyAborted = errors.New("gwist: request body aborted: the connection closed")
	// ErrBodyTooLarge: the body passed the route's StreamBody limit (413).
	ErrBodyTooLarge = errors.New("gwist: request body too large")
	// ErrBodyReadTimeout: no body byte arrived for WithBodyReadTimeout
	// while the handler was ready for more (408).
	ErrBodyReadTimeout = errors.New("gwist: request body read timeout")
	// ErrBodyFraming: the chunked framing of the body is malformed (400).
	ErrBodyFraming = errors.New("gwist: malformed request body")
)

// bodyStreams is the engine's Config.StreamBody: does the route of req
// stream its body? It runs on the event loop, for requests with a body
// only, and allocates nothing.
func (a *App) bodyStreams(req *http1.Request) (int64, bool) {
	res := a.router.Lookup(req.Method, req.Path, nil)
	if res.Status != router.Found || !res.Handler.stream {
		return 0, false
	}
	return res.Handler.streamMax, true
}

// BodyReader returns the request body as an io.Reader. On a route that
// streams its body (Group.StreamBody) it reads the body as it arrives: the
// first Read sends "100 Continue" to a client that waits for it, Read
// blocks until bytes arrive, and it returns io.EOF at the end (then a
// chunked body's trailers are in Request().Trailers). A failed Read
// returns ErrBodyAborted (at once, once the client is gone), or an
// *HTTPError wrapping ErrBodyTooLarge, ErrBodyReadTimeout or
// ErrBodyFraming, which the handler can return as it is; the connection
// then closes after the response, which is the error's status (413, 408 or
// 400) even if the handler answered otherwise, unless it had begun to
// stream. On other routes it reads the buffered Body. Use it from the
// handler's goroutine, before the handler returns.
//
// A handler may answer without reading the whole body: the rest is read
// and discarded to keep the connection when at most 256 KiB of it is left
// (for a chunked body: when it ends within 256 KiB more), otherwise the
// connection is closed after the response.
func (c *Ctx) BodyReader() io.Reader {
	if c.ex.StreamedBody() {
		return (*bodyStream)(c)
	}
	c.bodyBuf.Reset(c.ex.Request.Body)
	return &c.bodyBuf
}

// bodyStream is a Ctx seen as the reader of its streamed body.
type bodyStream Ctx

func (s *bodyStream) Read(p []byte) (int, error) {
	n, err := s.ex.ReadBody(p)
	err = fromEngine(err)
	s.bodyRead += int64(n)
	switch {
	case err == io.EOF && s.req != nil:
		// Request() copied the request before the trailers came; they are
		// the engine's copies, the handler's to keep.
		s.req.Trailers = s.ex.Request.Trailers
	case err != nil && err != io.EOF:
		err = bodyHTTPError(err)
	}
	return n, err
}

// bodyHTTPError wraps a streamed body's error in the HTTPError it calls for.
func bodyHTTPError(err error) error {
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		return &HTTPError{Code: http.StatusRequestEntityTooLarge, Message: "Request body too large", Err: err}
	case errors.Is(err, ErrBodyReadTimeout):
		return &HTTPError{Code: http.StatusRequestTimeout, Message: "Request body read timeout", Err: err}
	case errors.Is(err, ErrBodyFraming):
		return &HTTPError{Code: http.StatusBadRequest, Message: "Malformed request body", Err: err}
	}
	return err // ErrBodyAborted: the client is gone, nobody gets a status
}

// maxBodyBytes is the buffered body limit (WithMaxBodyBytes).
func (a *App) maxBodyBytes() int64 { return a.cfg.engine.Limits.MaxBody() }

// readLimited reads r whole, up to limit bytes (a 413 *HTTPError beyond),
// for helpers that need a streamed body in memory (BindJSON, Form).
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, &HTTPError{Code: http.StatusRequestEntityTooLarge, Message: "Request body too large", Err: ErrBodyTooLarge}
	}
	return buf.Bytes(), nil
}
