package gwist

import (
	"errors"
	"net/http"
	"sync"

	"github.com/gwist/gwist/engine"
)

// Errors of SSEFeed.Send.
var (
	// ErrSlowClient: more than WithMaxStreamQueued of the feed waits for
	// its client; the event was not queued, the feed stays open. Drop the
	// event, or Close the feed and let the client reconnect.
	ErrSlowClient = errors.New("gwist: the client is too far behind; nothing was queued")
	// ErrFeedClosed: the feed was closed (Close, or a Shutdown began).
	ErrFeedClosed = errors.New("gwist: the response has ended")
	// ErrCannotDetach: SSEFeed on a response with a Content-Length, or a
	// request pipelined in front of others. (A HEAD request gets the
	// stream's head and an ended feed.)
	ErrCannotDetach = errors.New("gwist: the response cannot outlive its handler (a Content-Length, or a request pipelined in front of others)")
	// ErrFeedNeedsLoop: SSEFeed under App.ServeHTTP with a ResponseWriter
	// that cannot flush (a feed must send each event at once).
	ErrFeedNeedsLoop = errors.New("gwist: SSEFeed needs gwist's own listener or a ResponseWriter that can flush")
)

// SSEFeed is a Server-Sent Events stream that outlives its handler and holds
// no goroutine: the handler opens it, hands it to whatever produces events
// (a hub, a timer) and returns. Its methods are safe from any goroutine.
//
// Send queues an event and returns at once; the event loop writes it. A
// heartbeat comment goes out from the event loop every WithSSEHeartbeat in
// which nothing was sent. The feed ends with Close, when the client leaves
// (Send then fails with ErrClientGone), or when a Shutdown begins (the
// client sees the stream end and reconnects, to another server if there is
// one); Done is closed then. Memory per open feed is the connection's and
// the feed's own (about 1 KiB together), not a goroutine's stack.
//
// Under App.ServeHTTP (httptest.NewServer(app), an App mounted on a
// net/http server) a feed works too, whenever the ResponseWriter can
// flush: the handler returns as usual, and ServeHTTP then writes the feed's
// events (and heartbeats) on its own goroutine, net/http's for that
// request, until the feed ends; the client's leaving and Shutdown end it
// as on gwist's listeners.
type SSEFeed struct {
	d   *engine.Detached // on gwist's listeners
	s   *sinkFeed        // under ServeHTTP (sse_feed_sink.go)
	mu  sync.Mutex
	buf []byte
}

// SSEFeed answers with a Server-Sent Events stream (Content-Type
// text/event-stream, Cache-Control no-cache, the head sent at once) that
// stays open after the handler returns; see SSEFeed. It fails with
// ErrInlineStreaming on an app running handlers on the event loop and with
// ErrCannotDetach where the response cannot outlive its handler, and with
// ErrFeedNeedsLoop under App.ServeHTTP with a ResponseWriter that cannot
// flush; the response is then left as it was. A HEAD request gets the
// stream's head without a body and a feed that has ended (Send fails with
// ErrFeedClosed).
func (c *Ctx) SSEFeed() (*SSEFeed, error) {
	if c.ex.Request.Method == http.MethodHead {
		return c.headFeed()
	}
	if c.ex.HasSink() {
		return c.sinkFeed()
	}
	every := c.app.sseHeartbeat()
	var d *engine.Detached
	err := c.startEventStream(func() error {
		var err error
		d, err = c.ex.Detach(max(every, 0), []byte(":\n\n"))
		return fromEngine(err)
	})
	if err != nil {
		return nil, err
	}
	c.responded = true
	return &SSEFeed{d: d}, nil
}

// headFeed answers a HEAD request to an event stream: the head a GET
// gets (status, Content-Type, Cache-Control, no Content-Length), no body,
// and a feed that has ended already (Send fails with ErrFeedClosed), so
// that whatever feeds it stops at once. net/http answers HEAD the same way.
func (c *Ctx) headFeed() (*SSEFeed, error) {
	if err := c.startEventStream(c.Flush); err != nil {
		return nil, err
	}
	c.responded = true
	sf := &sinkFeed{done: make(chan struct{})}
	sf.end(ErrFeedClosed)
	return &SSEFeed{s: sf}, nil
}

// Send queues one event. It fails with ErrSSEField for an ID or Event
// with a line break, ErrSlowClient while the client is too far behind, and
// ErrClientGone or ErrFeedClosed once the feed has ended.
func (f *SSEFeed) Send(ev SSEEvent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := appendEvent(f.buf[:0], ev)
	f.buf = b
	if err != nil {
		return err
	}
	return f.write(b)
}

// Comment queues a comment line (or lines), which clients ignore.
func (f *SSEFeed) Comment(text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf = append(appendLines(f.buf[:0], ": ", text), '\n')
	return f.write(f.buf)
}

// write queues encoded bytes (copied).
func (f *SSEFeed) write(b []byte) error {
	if f.s != nil {
		return f.s.write(b)
	}
	return fromEngine(f.d.Write(b))
}

// Close ends the stream after the events already queued; the connection
// goes on to its next request. Closing an ended feed does nothing.
func (f *SSEFeed) Close() error {
	if f.s != nil {
		f.s.close()
		return nil
	}
	return fromEngine(f.d.Close())
}

// Done is closed when the feed has ended.
func (f *SSEFeed) Done() <-chan struct{} {
	if f.s != nil {
		return f.s.done
	}
	return f.d.Done()
}

// Err says why the feed ended (ErrFeedClosed, ErrClientGone); nil while
// it is open.
func (f *SSEFeed) Err() error {
	if f.s != nil {
		return f.s.error()
	}
	return fromEngine(f.d.Err())
}

// afterEnd runs fn once when the feed ends (at once if it has): on the
// goroutine that ends it, so fn must be quick.
func (f *SSEFeed) afterEnd(fn func()) {
	if f.s != nil {
		f.s.afterEnd(fn)
		return
	}
	f.d.AfterEnd(fn)
}
