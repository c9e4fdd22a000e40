package gwist

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultSSEHeartbeat is how often an idle Server-Sent Events stream sends
// a comment, unless WithSSEHeartbeat says otherwise.
const DefaultSSEHeartbeat = 15 * time.Second

// SSEEvent is one Server-Sent Event.
type SSEEvent struct {
	// ID sets the client's last event ID ("id:" field); "" sends none.
	ID string
	// Event is the event type ("event:" field); "" means "message".
	Event string
	// Data is the payload; each of its lines (split at CRLF, CR or LF) is
	// sent as its own "data:" field, and the client joins them with LF.
	Data string
	// Retry, when > 0, tells the client how long to wait before
	// reconnecting ("retry:" field, in milliseconds).
	Retry time.Duration
}

// ErrSSEField is returned by SSE.Send for an ID or Event holding a line
// break (which would start another field or event) or an ID holding NUL.
var ErrSSEField = errors.New("gwist: SSE id or event contains a line break or NUL")

// SSE is an open Server-Sent Events stream; see Ctx.SSE. Its methods may be
// called from any goroutine while the function given to Ctx.SSE runs.
type SSE struct {
	c    *Ctx
	done chan struct{} // see Done
	mu   sync.Mutex
	buf  []byte
	sent bool // something was written since the last heartbeat tick
	err  error
}

// SSE answers with a Server-Sent Events stream: it sets Content-Type
// text/event-stream and Cache-Control no-cache, sends the head at once and
// runs fn, which sends events with s.Send until it returns; the stream ends
// with it. While fn runs, a comment line goes out every heartbeat interval
// in which nothing else was sent (WithSSEHeartbeat). When the client leaves,
// Send fails with ErrClientGone and s.Done is closed: fn should watch it
// (or Send's error) and return. SSE returns fn's error, or the error that
// kept the stream from starting (ErrInlineStreaming on an app running
// handlers on the event loop, which cannot stream).
func (c *Ctx) SSE(fn func(s *SSE) error) error {
	if err := c.startEventStream(c.Flush); err != nil {
		return err
	}
	s := &SSE{c: c, done: make(chan struct{})}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go s.watch(c.app.sseHeartbeat(), stop, stopped)
	defer func() { close(stop); <-stopped }()
	return fn(s)
}

// startEventStream sets an event stream's head and sends it with start
// (Flush, or Detach). When start fails before anything was sent, the
// response is left as it was.
func (c *Ctx) startEventStream(start func() error) error {
	prevCT, prevStatus, prevResponded := c.ResponseHeader("Content-Type"), c.ex.Status, c.responded
	c.SetHeader("Content-Type", "text/event-stream")
	c.SetHeader("Cache-Control", "no-cache")
	if c.ex.Status == 0 {
		c.Status(http.StatusOK)
	}
	err := start()
	if err != nil && !c.ex.Streaming() {
		c.ex.Header.Del("Cache-Control")
		c.ex.Header.Del("Content-Type")
		if prevCT != "" {
			c.SetHeader("Content-Type", prevCT)
		}
		c.ex.Status, c.responded = prevStatus, prevResponded
	}
	return err
}

// sseHeartbeat is the heartbeat interval; 0 or less sends none.
func (a *App) sseHeartbeat() time.Duration {
	if a.cfg.sseHeartbeat == 0 {
		return DefaultSSEHeartbeat
	}
	return a.cfg.sseHeartbeat
}

// Done is closed when the client has gone away (or the server closed the
// connection), and when the App drains (Shutdown closes its listeners; see
// App.Draining): fn should then return, ending the stream cleanly, and the
// client's EventSource reconnects.
func (s *SSE) Done() <-chan struct{} { return s.done }

// Send writes one event and sends it at once (blocking while the client is
// too far behind; see WithMaxStreamQueued).
func (s *SSE) Send(ev SSEEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := appendEvent(s.buf[:0], ev)
	if err != nil {
		return err
	}
	return s.write(b)
}

// appendEvent appends ev in the event stream format.
func appendEvent(b []byte, ev SSEEvent) ([]byte, error) {
	if strings.ContainsAny(ev.ID, "\r\n\x00") || strings.ContainsAny(ev.Event, "\r\n") {
		return b, ErrSSEField
	}
	if ev.ID != "" {
		b = append(append(append(b, "id: "...), ev.ID...), '\n')
	}
	if ev.Event != "" {
		b = append(append(append(b, "event: "...), ev.Event...), '\n')
	}
	if ev.Retry > 0 {
		b = strconv.AppendInt(append(b, "retry: "...), ev.Retry.Milliseconds(), 10)
		b = append(b, '\n')
	}
	if ev.Data != "" {
		b = appendLines(b, "data: ", ev.Data)
	}
	return append(b, '\n'), nil
}

// Comment sends a comment line (or lines), which clients ignore.
func (s *SSE) Comment(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.write(append(appendLines(s.buf[:0], ": ", text), '\n'))
}

// write sends b; called with mu held.
func (s *SSE) write(b []byte) error {
	s.buf = b
	if s.err != nil {
		return s.err
	}
	if _, err := s.c.Write(b); err != nil {
		s.err = err
		return err
	}
	s.sent = true
	return nil
}

// appendLines appends text as one prefixed line per line of text.
func appendLines(b []byte, prefix, text string) []byte {
	for {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			return append(append(append(b, prefix...), text...), '\n')
		}
		b = append(append(append(b, prefix...), text[:i]...), '\n')
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
}

// watch closes done when the client goes or the App drains, and sends a
// heartbeat comment every interval in which nothing was sent (none when
// every <= 0). It returns when stop closes.
func (s *SSE) watch(every time.Duration, stop <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	var tick <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	gone, drained := s.c.Context().Done(), s.c.app.Draining()
	for {
		select {
		case <-stop:
			return
		case <-gone:
		case <-drained:
		case <-tick:
			s.beat()
			continue
		}
		close(s.done)
		<-stop
		return
	}
}

// beat sends a heartbeat comment if nothing was sent since the last one.
func (s *SSE) beat() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sent && s.err == nil {
		_ = s.write(append(s.buf[:0], ":\n\n"...)) // a failure is Send's to report
	}
	s.sent = false
}
