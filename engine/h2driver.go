//go:build unix

package engine

import (
	"strconv"
	"strings"
	"time"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/http2"
)

// h2Driver is the HTTP/2 protocol driver (driver.go): the sans-I/O
// http2.Conn on the loop, one Exchange per stream, handlers on the worker
// pool (or inline) many at a time, and their responses framed on the loop
// as they come back (h2stream.go). Loop only.
type h2Driver struct {
	c       *conn
	h2      *http2.Conn
	streams map[uint32]*h2Stream
	// buffered counts the request body bytes held for streams whose
	// handler has not started; past 2 × the body limit a stream is refused.
	buffered int64
	draining bool // Shutdown began: GOAWAY sent
	// running counts the streams whose handlers run on workers, at most
	// Config.MaxConnHandlers; waiting holds the streams ready beyond it,
	// in arrival order (h2share.go).
	running int
	waiting []*h2Stream
	// ready: the streams whose handlers handed output over (h2ready.go).
	ready h2Ready
	// refill brings the loop back to refill the output once it has
	// drained below the target (drainwatch.go).
	refill drainWatch
	// lentAfterFree: pooled buffers of freed streams that http2.Conn
	// still frames from, lentParked bytes of them (h2outbuf.go).
	lentAfterFree []h2LentBuf
	lentParked    int
}

// newH2Driver starts HTTP/2 on c. Loop only.
func newH2Driver(c *conn) *h2Driver {
	d := &h2Driver{c: c, streams: make(map[uint32]*h2Stream)}
	cfg := c.config().H2
	cfg.Counters = &c.srv.h2counters
	d.h2 = http2.NewConn(cfg, time.Unix(0, c.srv.now()))
	return d
}

// switchToH2 makes c speak HTTP/2 from now on: after ALPN chose h2, or when
// a plaintext connection opens with the client preface.
func (c *conn) switchToH2() {
	c.h1.releaseParser()
	d := newH2Driver(c)
	c.proto = d
	c.srv.h2conns.Add(1)
	c.setPhase(phaseWaiting, 0)
}

func (d *h2Driver) serve() {
	c := d.c
	for !c.closed && !c.readingStopped() {
		in := c.input()
		if len(in) == 0 {
			break
		}
		n := d.h2.Feed(in)
		c.consume(n)
		d.events()
		if n == 0 {
			break // a partial frame: wait for the rest
		}
	}
	d.output()
}

// events handles what the connection reported.
func (d *h2Driver) events() {
	for {
		ev, ok := d.h2.Next()
		if !ok {
			return
		}
		switch ev.Kind {
		case http2.EventRequest:
			d.onRequest(ev)
		case http2.EventData:
			d.onData(ev)
		case http2.EventTrailers:
			if s := d.streams[ev.Stream]; s != nil && s.body != nil {
				s.body.p.end(ev.Trailers)
			} else if s != nil && s.handler == h2Receiving {
				s.ex.Request.Trailers = ev.Trailers
				d.dispatch(s)
			}
		case http2.EventReset:
			if s := d.streams[ev.Stream]; s != nil {
				s.reset()
			}
		case http2.EventWritable:
			if s := d.streams[ev.Stream]; s != nil {
				s.pump()
			}
		case http2.EventGoAway:
			// The peer opens no more streams; those in flight finish.
		}
	}
}

func (d *h2Driver) onRequest(ev http2.Event) {
	c := d.c
	ex := getExchange(c.remote)
	if c.isTLS() {
		ex.tlsc = c.tls // for Exchange.TLS
	}
	ev.Request.FillHTTP1(&ex.Request)
	s := &h2Stream{d: d, id: ev.Stream, ex: ex, room: make(chan struct{}, 1), declared: -1}
	ex.resp = s
	s.bodyAt = c.srv.now()
	d.streams[s.id] = s
	c.srv.h2streams.Add(1)
	c.setPhase(phaseWaiting, 0)
	if s.protocol = ev.Request.Protocol; s.protocol != "" {
		ex.protocol = s.protocol
		d.dispatch(s) // an extended CONNECT: its stream stays open (wsh2.go)
		return
	}
	if ev.Request.Method == "CONNECT" {
		ex.refused, ex.refusedErr = 501, errH2Connect // answered now: the stream never ends
		d.dispatch(s)
		return
	}
	cfg := c.config()
	limit := cfg.Limits.MaxBody()
	if !ev.EndStream && cfg.StreamBody != nil {
		if max, ok := cfg.StreamBody(&ex.Request); ok {
			limit = max // the route streams its body (h2body.go)
			if max <= 0 || ex.Request.ContentLength <= max {
				s.body = newH2Body(s, max)
				ex.body = s.body.p
			}
		}
	}
	if limit > 0 && ex.Request.ContentLength > limit {
		ex.refused = 413
	}
	if !ev.EndStream && ex.refused == 0 && expectsContinue(&ex.Request) {
		// RFC 9110 section 10.1.1: the client waits for 100 before it sends
		// the body. A streamed body gets it when its handler first reads
		// (h2body.go bodyWanted); a buffered one is read by the engine, now.
		ex.Request.Expect100 = true
		if s.body != nil {
			s.body.cont = true
		} else if d.h2.WriteHeaders(s.id, 100, nil, false) != nil {
			return
		}
	}
	if ev.EndStream || ex.refused != 0 || s.body != nil {
		d.dispatch(s)
	}
}

// expectsContinue: the request carries "expect: 100-continue".
func expectsContinue(req *http1.Request) bool {
	for _, f := range req.Headers {
		if f.Name == "expect" && strings.EqualFold(f.Value, "100-continue") {
			return true
		}
	}
	return false
}

func (d *h2Driver) onData(ev http2.Event) {
	s := d.streams[ev.Stream]
	if s != nil {
		s.bodyAt = d.c.srv.now()
	}
	if s != nil && s.protocol != "" {
		s.onWSData(ev.Data, ev.EndStream) // credited as the WebSocket reads
		return
	}
	if s != nil && s.body != nil {
		s.body.feed(ev.Data, ev.EndStream) // credited as the handler reads
		return
	}
	d.h2.Consumed(ev.Stream, len(ev.Data)) // taken (or dropped) at once
	if s == nil || s.handler != h2Receiving {
		return
	}
	ex := &s.ex.Request
	max := d.c.config().Limits.MaxBody()
	if int64(len(ex.Body)+len(ev.Data)) > max || d.buffered+int64(len(ev.Data)) > 2*max {
		s.ex.refused = 413
		d.dispatch(s)
		return
	}
	ex.Body = append(ex.Body, ev.Data...)
	d.buffered += int64(len(ev.Data))
	s.held += int64(len(ev.Data))
	if ev.EndStream {
		d.dispatch(s)
	}
}

// dispatch hands the stream's request to its handler: at once, or when
// the connection's share of the worker pool has room (h2share.go).
func (d *h2Driver) dispatch(s *h2Stream) {
	c := d.c
	d.buffered -= s.held
	s.held = 0
	ex := s.ex
	if s.body == nil {
		ex.Request.ContentLength = int64(len(ex.Request.Body))
	}
	if ex.refused != 0 && ex.refusedErr == nil {
		ex.refusedErr = errH2BodyTooLarge
	}
	if c.config().Inline && s.body == nil { // a streamed body needs a worker
		s.handler = h2Running
		c.srv.serve(ex)
		s.handlerDone(ex)
		s.collect()
		return
	}
	if d.running >= c.config().MaxConnHandlers {
		d.wait(s)
		return
	}
	d.start(s)
}

// start runs the stream's handler on a worker, or answers 503 when the
// pool is full.
func (d *h2Driver) start(s *h2Stream) {
	c := d.c
	ex := s.ex
	s.handler = h2Running
	b := getBatch(c)
	b.exs = append(b.exs, ex)
	b.reqs = 1
	b.h2 = s
	s.b = b
	if err := c.config().Workers.submit(b); err != nil {
		b.exs = b.exs[:0] // the exchange stays the stream's
		s.b = nil
		b.release()
		if ex.body != nil {
			ex.body.close(ex) // nobody will read the body
		}
		c.srv.logDebug("worker pool full; answered 503 on an HTTP/2 stream", c)
		c.srv.fillRejected(ex)
		s.handlerDone(ex)
		s.collect()
		return
	}
	d.running++
}

// h2OutboundTarget bounds the response DATA an HTTP/2 connection leaves
// queued below its scheduler: in gnet's outbound buffer and in the
// kernel's send queue (Linux). What is queued there is out of the
// scheduler's hands, and a small response framed now goes out behind all
// of it: with 8 downloads on a connection, megabytes of them in the send
// queue held a small response back for hundreds of milliseconds. The
// peer's WINDOW_UPDATEs (and the handlers' writes) bring the loop back to
// refill it before it drains.
const h2OutboundTarget = 256 << 10

// h2OutputBatch is how much output frames before writing it: under the
// 64 KiB an output buffer may keep between callbacks (finishOutput).
const h2OutputBatch = 60 << 10

// outboundRoom is how many more bytes output may frame now. The send
// queue is asked (a system call) only while DATA waits: control frames and
// HEADERS always go at once.
func (d *h2Driver) outboundRoom() int {
	c := d.c
	room := c.config().MaxOutboundBytes - c.gc.OutboundBuffered() - len(c.out)
	if room > 0 && d.h2.QueuedData() > 0 {
		room = min(room, h2OutboundTarget-c.gc.OutboundBuffered()-len(c.out))
		if q := sendQueued(c.fd); q > 0 {
			room -= q
		}
	}
	return room
}

// output moves what the connection has to send to the connection's output,
// within what gnet may still buffer for it (h2OutboundTarget).
func (d *h2Driver) output() {
	c := d.c
	for !c.closed {
		room := d.outboundRoom()
		if room <= 0 && d.h2.Pending() {
			c.out = d.h2.OutputSmall(c.out)         // heads, control frames and small bodies never wait
			d.events()                              // EventWritable for what it made room for
			c.armDrainWatch(&d.refill, d, d.output) // the socket drains without telling: look again soon
		}
		if room <= 0 || !d.h2.Pending() {
			break
		}
		n := len(c.out)
		c.out = d.h2.Output(c.out, min(room, h2OutputBatch)) // framed straight into the connection's output
		if len(c.out) == n {
			break
		}
		if len(c.out) >= h2OutputBatch {
			// Written as it grows, so the output buffer stays within what
			// finishOutput keeps between callbacks instead of growing to
			// the room and being dropped: a 1 MiB body cost ~4 such
			// buffers per response.
			c.writeWire(c.out)
			c.out = c.out[:0]
		}
		d.events() // EventWritable as windows and queues make room
	}
	if len(d.lentAfterFree) > 0 {
		d.reclaimLentAfterFree()
	}
	if d.h2.Finished() {
		c.closeWhenDone()
	}
}

// collect: responses come back per connection, ready stream by ready
// stream (h2ready.go), not in order.
func (d *h2Driver) collect() {}

func (d *h2Driver) collectSettled() bool { return false }

// endCallback: nothing of a request is held between callbacks but the
// streams themselves.
func (d *h2Driver) endCallback() {}

// writable: after the callback's output, and at every sweep: gnet may
// have drained what held output back.
func (d *h2Driver) writable() {
	if d.h2.Pending() && len(d.c.out) == 0 && d.outboundRoom() > 0 {
		d.output()
		if len(d.c.out) > 0 {
			d.c.writeWire(d.c.out)
			d.c.out = d.c.out[:0]
		}
	}
}

func (d *h2Driver) tick(now int64) {
	if d.c.srv.draining.Load() && !d.draining {
		d.draining = true
		d.h2.Shutdown()
	}
	d.h2.Tick(time.Unix(0, now))
	for _, s := range d.streams {
		if s.writeTimedOut(now) || s.bodyTimedOut(now) {
			continue
		}
		if s.det != nil && s.handler == h2Returned {
			s.detachedTick(now)
		}
		if ws := s.ws; ws != nil && s.sent != sentCut {
			ws.retryCallbacks()
			ws.keepalive(now)
			ws.readOnH2() // the peer may have read meanwhile
		}
	}
	d.output()
}

// goAway sends GOAWAY (NO_ERROR) before the server closes the idle
// connection, so the client knows no stream was lost.
func (d *h2Driver) goAway() {
	if !d.draining {
		d.draining = true
		d.h2.Shutdown()
	}
	d.output()
}

// queued: streams are in flight (the drain and the idle timer wait).
func (d *h2Driver) queued() bool { return len(d.streams) > 0 || d.h2.Pending() }

func (d *h2Driver) quiet() bool { return len(d.streams) == 0 }

// readTimeout: HTTP/2 has no partial request the read timer watches; an
// idle connection is closed by the idle timer (with GOAWAY first).
func (d *h2Driver) readTimeout() bool { return false }

// close cancels every stream in flight and frees what the loop owns.
func (d *h2Driver) close() {
	for _, s := range d.streams {
		s.reset()   // as if the client had reset every stream
		s.uncount() // a stream left to its handler is never freed by the loop
	}
	d.c.srv.h2conns.Add(-1)
}

// responseFields are the head of ex's response for HTTP/2: the handler's
// fields, then content-length, date and server. contentLength >= 0 is the
// length of a body known whole: it replaces a Content-Length the handler
// set, which may not match (a handler that set one and then failed; RFC
// 9113 section 8.1.1 requires it to equal the DATA sent). -1 leaves the
// handler's, whose streamed body the stream then holds to it.
func responseFields(ex *Exchange, contentLength int64, server string) []http1.HeaderField {
	hf := ex.Header.Fields()
	f := make([]http1.HeaderField, 0, len(hf)+3)
	for _, h := range hf {
		if contentLength >= 0 && strings.EqualFold(h.Name, "Content-Length") {
			continue
		}
		f = append(f, h)
	}
	if contentLength >= 0 {
		f = append(f, http1.HeaderField{Name: "content-length", Value: strconv.FormatInt(contentLength, 10)})
	}
	f = append(f, http1.HeaderField{Name: "date", Value: string(http1.Date.Append(nil))})
	if server != "" {
		f = append(f, http1.HeaderField{Name: "server", Value: server})
	}
	return f
}
