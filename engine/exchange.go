//go:build unix

package engine

import (
	"cmp"
	"context"
	"net"
	"sync"
	"time"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/tlsstate"
)

// Handler serves one request: it reads ex.Request and fills ex.Status,
// ex.Header and ex.Body. It runs on a worker, or on the event loop when the
// server is Inline.
type Handler func(ex *Exchange)

// Exchange is one request and the response being built for it. The engine
// pools Exchanges: nothing of it (strings of the Request included) may be used
// after the Handler returns.
type Exchange struct {
	// Request is the parsed request; its strings point into memory it owns.
	Request http1.Request
	// Status is the response status (200 when left at 0).
	Status int
	// Header holds the response header fields set by the handler. Framing
	// fields (Content-Length, Transfer-Encoding, Connection, Date) are the
	// engine's; a handler-set "Connection: close" closes the connection after
	// this response.
	Header http1.Header
	// Body is the response body, sent whole when the handler returns unless
	// the response streams (see Flush).
	Body []byte
	// Trailer holds trailer fields, sent after a chunked body: a streamed
	// HTTP/1.1 response without a Content-Length, or a buffered one, which
	// is then sent chunked to carry them (HTTP/1.0 clients get none).
	Trailer http1.Header
	// User is free for the layer above; it survives pooling so that layer can
	// keep its per-request object here instead of allocating one per request.
	User any

	remote net.Addr
	cancel cancelState
	// clock: the clock carry (ClockCarry), handed from one request to the
	// next by the engine where they are served back to back; 0 from the
	// pool (putExchange).
	clock int64
	// resp is the protocol's side of the response (responder.go); w is
	// that side for an HTTP/1 request on a worker (resp is then &w).
	resp responder
	w    h1Worker
	body *bodyPipe      // set when the request body streams (bodypipe.go)
	tlsc *tlsstate.Conn // the connection's TLS state; nil on plaintext
	ws   *WSConn        // set when the handler upgraded to WebSocket (wsupgrade.go)
	// large is the pooled buffer GrowBody gave ex.Body (largebody.go).
	large *byte
	// protocol is an HTTP/2 extended CONNECT's :protocol (RFC 8441).
	protocol string
	// refused: the status the engine refused the request with after its
	// head (a body over the limit, bad body framing), and why.
	refused    int
	refusedErr error
}

var exchangePool = sync.Pool{New: func() any { return new(Exchange) }}

// maxPooledBody is the largest response body buffer a pooled Exchange
// keeps.
const maxPooledBody = 64 << 10

func getExchange(remote net.Addr) *Exchange {
	ex := exchangePool.Get().(*Exchange)
	ex.remote = remote
	return ex
}

func putExchange(ex *Exchange) {
	ex.Request.Reset()
	ex.Status = 0
	ex.Header.Reset()
	ex.Trailer.Reset()
	ex.resp, ex.w, ex.body, ex.ws, ex.protocol = nil, h1Worker{}, nil, nil, ""
	ex.refused, ex.refusedErr = 0, nil
	ex.releaseLargeBody()
	if cap(ex.Body) > maxPooledBody {
		ex.Body = nil // do not let one large response pin memory in the pool
	} else {
		ex.Body = ex.Body[:0]
	}
	ex.remote, ex.tlsc, ex.clock = nil, nil, 0
	ex.cancel.reset()
	exchangePool.Put(ex)
}

// ClockCarry returns the clock reading that the request served just
// before ex left with SetClockCarry, when the two were served back to back
// on the same goroutine (pipelined HTTP/1 requests in one batch on a
// worker, or in one read inline); 0 when there is none. An observer that
// times requests takes it as ex's start: the end of one is the start of
// the next, so such requests cost it one clock read each instead of two.
// The reading is the caller's own; the engine only hands it on.
func (ex *Exchange) ClockCarry() int64 { return ex.clock }

// SetClockCarry leaves t for the request served next after ex, if one
// follows on the same goroutine (see ClockCarry).
func (ex *Exchange) SetClockCarry(t int64) { ex.clock = t }

// RemoteAddr is the client's address.
func (ex *Exchange) RemoteAddr() net.Addr { return ex.remote }

// Refused reports a request the engine refused once its head had arrived:
// its body is over the limit (413) or badly framed (400). The handler gets
// it so that the refusal is answered the way the application answers
// errors (its error handler, its middleware, its logs) rather than by the
// engine alone; the route's handler must not run, since the body is not
// there. The connection closes after the answer. status is 0 for a request
// that was not refused.
func (ex *Exchange) Refused() (status int, err error) { return ex.refused, ex.refusedErr }

// Context returns a context that is cancelled when the client goes away or
// the server closes the connection (a forced shutdown). It is the Exchange
// itself, so it costs no allocation until Done is called.
func (ex *Exchange) Context() context.Context { return (*exchangeContext)(ex) }

// appendResponse serializes the response; keepAlive is the engine's decision.
func (ex *Exchange) appendResponse(dst []byte, keepAlive bool, server string) []byte {
	dst, framing, trailers := ex.appendResponseHead(dst, keepAlive, server)
	return ex.appendResponseBody(dst, framing, trailers)
}

// appendResponseHead serializes the response's head and says how its body
// is framed.
func (ex *Exchange) appendResponseHead(dst []byte, keepAlive bool, server string) ([]byte, http1.BodyFraming, []http1.HeaderField) {
	status := ex.Status
	if status == 0 {
		status = 200
	}
	head := http1.ResponseHead{
		Status:        status,
		Header:        &ex.Header,
		ContentLength: int64(len(ex.Body)),
		ProtoMinor:    ex.Request.ProtoMinor,
		KeepAlive:     keepAlive,
		HeadRequest:   ex.Request.Method == "HEAD",
		Server:        server,
	}
	trailers := ex.Trailer.Fields()
	if len(trailers) > 0 && head.ProtoMinor >= 1 {
		head.ContentLength = -1 // chunked, to carry the trailers
	}
	return http1.AppendHead(dst, &head), head.Framing(), trailers
}

// appendResponseBody serializes ex.Body as framing says, after the head.
func (ex *Exchange) appendResponseBody(dst []byte, framing http1.BodyFraming, trailers []http1.HeaderField) []byte {
	switch framing {
	case http1.FramingLength:
		dst = append(dst, ex.Body...)
	case http1.FramingChunked:
		dst = http1.AppendChunk(dst, ex.Body)
		dst = http1.AppendLastChunk(dst, trailers)
	}
	return dst
}

// wantsClose reports whether the handler asked to close the connection.
func (ex *Exchange) wantsClose() bool {
	v := ex.Header.Get("Connection")
	return v != "" && asciiEqualFold(v, "close")
}

func bodyAllowed(status int) bool {
	return status >= 200 && status != 204 && status != 304
}

// status is the response's status: 200 while the handler has set none.
func (ex *Exchange) status() int { return cmp.Or(ex.Status, 200) }

// bodiless reports whether the response carries no body: the answer to a
// HEAD, or a status that has none.
func (ex *Exchange) bodiless() bool {
	return ex.Request.Method == "HEAD" || !bodyAllowed(ex.status())
}

func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// cancelState is the cancellation half of an Exchange's context: the loop
// cancels it, handlers on workers wait on it.
type cancelState struct {
	mu   sync.Mutex
	done chan struct{}
	err  error
	// ending is how far the cancellation goes: whether the response is
	// still sent.
	ending exchangeEnding
	// afters run (each on a goroutine of its own) when it is cancelled:
	// the AfterFunc of the Exchange's context; running counts those that
	// run, for end.
	afters  []*afterFunc
	running sync.WaitGroup
}

// exchangeEnding is how far an exchange's cancellation goes.
type exchangeEnding uint8

const (
	// exchangeLive: not cancelled.
	exchangeLive exchangeEnding = iota
	// exchangeClientShut: the client shut its write side (a FIN) with the
	// request in flight (peerdone_linux.go). Its context is done, as
	// net/http's is, for a FIN does not tell a half-close from a client
	// that left; but the response is still sent, streamed ones too: the
	// client may be reading. A write to a client that left fails.
	exchangeClientShut
	// exchangeEnded: the connection closed, or the request is not to be
	// answered: nothing more of its response is written.
	exchangeEnded
)

// afterFunc is one function to run at the cancellation.
type afterFunc struct{ f func() }

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (s *cancelState) reset() {
	s.mu.Lock()
	s.done, s.err, s.ending = nil, nil, exchangeLive
	clear(s.afters) // the request ended uncancelled: they never run
	s.afters = s.afters[:0]
	s.mu.Unlock()
}

// afterFunc runs f on its own goroutine when the state is cancelled (at
// once if it is), unless stop is called first; stop reports whether it
// stopped f. A stop called once the Exchange serves another request finds
// nothing to stop and reports false.
func (s *cancelState) afterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	s.mu.Lock()
	if s.err != nil {
		s.running.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.running.Done()
			f()
		}()
		return func() bool { return false }
	}
	s.afters = append(s.afters, a)
	s.mu.Unlock()
	return func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, b := range s.afters {
			if b == a {
				last := len(s.afters) - 1
				s.afters[i] = s.afters[last]
				s.afters[last] = nil
				s.afters = s.afters[:last]
				return true
			}
		}
		return false
	}
}

// errNow is the cancellation cause, nil while the request is live.
func (s *cancelState) errNow() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// ended reports whether nothing more of the response is to be written
// (exchangeEnded).
func (s *cancelState) ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ending == exchangeEnded
}

// awaitUnlessEnded waits for ch to be ready; it reports false when ex
// ends first. A half-close makes the context done without ending
// the exchange: the wait goes on then, looking at the exchange again every
// pollWait, so that a close after it is still seen.
func awaitUnlessEnded[T any](ex *Exchange, ch <-chan T) bool {
	for {
		select {
		case <-ch:
			return true
		case <-ex.Context().Done():
		}
		if ex.cancel.ended() {
			return false
		}
		t := time.NewTimer(pollWait)
		select {
		case <-ch:
			t.Stop()
			return true
		case <-t.C:
		}
	}
}

// cancel ends the exchange: its context is done with err, and nothing
// more of its response is written.
func (s *cancelState) cancel(err error) { s.cancelTo(exchangeEnded, err) }

// cancelAtClientShut cancels the context at a client's half-close; the
// response still goes out (exchangeClientShut).
func (s *cancelState) cancelAtClientShut() { s.cancelTo(exchangeClientShut, context.Canceled) }

// cancelTo cancels the context with err (the first cancellation's err
// stays) and takes the ending to at least to.
func (s *cancelState) cancelTo(to exchangeEnding, err error) {
	s.mu.Lock()
	s.ending = max(s.ending, to)
	var run []*afterFunc
	if s.err == nil {
		s.err = err
		if s.done != nil {
			close(s.done)
		}
		run = append(run, s.afters...)
		clear(s.afters)
		s.afters = s.afters[:0]
	}
	s.running.Add(len(run))
	s.mu.Unlock()
	for _, a := range run {
		go func() {
			defer s.running.Done()
			a.f()
		}()
	}
}

// end: the handlers returned. What AfterFunc registered and has not run
// never will, and it waits for what runs: these functions read the
// Exchange (context.WithCancel's calls Err and Value on it), which is
// recycled next.
func (s *cancelState) end() {
	s.mu.Lock()
	clear(s.afters)
	s.afters = s.afters[:0]
	s.mu.Unlock()
	s.running.Wait()
}

// exchangeContext is an Exchange seen as a context.Context.
type exchangeContext Exchange

// parent is the context of an Exchange from outside the loop (a sink's),
// which the Exchange's context is; nil for the loop's exchanges.
func (c *exchangeContext) parent() context.Context {
	if s := (*Exchange)(c).respond().sink(); s != nil {
		return s.ctx
	}
	return nil
}

func (c *exchangeContext) Deadline() (time.Time, bool) {
	if p := c.parent(); p != nil {
		return p.Deadline()
	}
	return time.Time{}, false
}

func (c *exchangeContext) Done() <-chan struct{} {
	if p := c.parent(); p != nil {
		return p.Done()
	}
	s := &c.cancel
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		if s.err != nil {
			s.done = closedChan
		} else {
			s.done = make(chan struct{})
		}
	}
	return s.done
}

func (c *exchangeContext) Err() error {
	if p := c.parent(); p != nil {
		return p.Err()
	}
	s := &c.cancel
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// EndContext runs on the handler's goroutine once the handlers have
// returned: functions registered with the context's AfterFunc that have
// not run never will, and it waits for those that run (they may read the
// Exchange, which is recycled next).
func (ex *Exchange) EndContext() {
	if ex.respond().sink() == nil {
		ex.cancel.end()
	}
}

// AfterFunc runs f on its own goroutine once the context is done, unless
// stop is called first, as context.AfterFunc does; it lets
// context.WithCancel and WithTimeout on the Exchange's context take its
// cancellation without a goroutine of their own (which would outlive the
// request and read a recycled Exchange).
func (c *exchangeContext) AfterFunc(f func()) (stop func() bool) {
	if p := c.parent(); p != nil {
		return context.AfterFunc(p, f)
	}
	return c.cancel.afterFunc(f)
}

func (c *exchangeContext) Value(key any) any {
	if p := c.parent(); p != nil {
		return p.Value(key)
	}
	return nil
}
