//go:build unix

package engine

import (
	"context"
	"errors"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/http2"
)

// h1Driver is the HTTP/1.1 protocol driver (driver.go): it parses requests
// from the connection's input, dispatches them inline or to workers in
// batches, and writes their responses back in request order. Loop only;
// workers reach it through a batch coming back (batch.Run) or a grant
// request (outbound.go).
type h1Driver struct {
	c *conn

	parser *http1.Parser // nil while idle (parsers.go)
	cur    *Exchange     // request being parsed

	// head and tail of the batches whose responses are not yet written, in
	// request order; building is the batch being filled in this callback.
	head, tail *batch
	building   *batch
	inflight   int // requests parsed and not yet answered

	// grantWait: a streaming batch waiting for the write side (outbound.go).
	grantWait *grantReq
	// in: the streamed request body arriving (inbody.go).
	in *inbody
	// detached: the response at the head of the queue that the loop writes
	// for a handler that has returned (detached.go).
	detached *Detached
	// curHead: cur's head is complete (its body is arriving).
	curHead bool
	// spoke: the connection has carried HTTP/1 bytes (no h2c preface
	// can come any more).
	spoke bool
	// upgrading: a request that asks for a WebSocket is with its handler;
	// what follows it is not parsed until it is answered (wsupgrade.go).
	upgrading bool
	// parked brings the loop back to parse requests that wait behind
	// MaxOutboundBytes of output once that drains (drainwatch.go).
	parked drainWatch
}

// serve parses as many complete requests as the buffered input holds and
// the connection's in-flight budget allows, serving or dispatching each.
func (d *h1Driver) serve() {
	c := d.c
	cfg := c.config()
	var clock int64 // the clock carry of the requests served inline here (Exchange.ClockCarry)
	for !c.closed && !c.readingStopped() {
		if d.in != nil { // a streamed body arriving (inbody.go)
			if !d.feedBody() {
				break
			}
			continue
		}
		if ob := c.gc.OutboundBuffered(); d.inflight >= cfg.MaxPipelined || ob > cfg.MaxOutboundBytes || d.upgrading {
			c.paused = true
			in := c.inboundBytes()
			if in > 0 && ob > cfg.MaxOutboundBytes {
				c.armDrainWatch(&d.parked, d, func() { c.resumeIfPaused() }) // gnet does not say when it drains
			}
			if in > cfg.MaxInboundBytes {
				// Abuse (the read pause keeps honest clients far below):
				// answer what is in flight, then close.
				c.srv.logDebug("closing connection over its inbound buffer cap", c)
				c.srv.pipe.inboundCapped.Add(1)
				c.closeWhenDone()
				c.discardInput()
			} else {
				c.srv.pipe.notePeak(in)
			}
			break
		}
		c.paused = false
		buf := c.input()
		if len(buf) == 0 {
			break
		}
		if !d.spoke && cfg.H2C && !c.isTLS() {
			// h2c by prior knowledge: the connection opens with the
			// HTTP/2 client preface instead of a request.
			match, more := http2.IsPreface(buf)
			if more {
				return
			}
			if match {
				c.switchToH2()
				c.proto.serve()
				return
			}
			if !d.firstLineIsHTTP1(buf) {
				return // closed: neither protocol (h2upgrade.go)
			}
		} else {
			d.spoke = true
		}
		if d.cur == nil {
			d.cur, d.curHead = getExchange(c.remote), false
			if c.isTLS() {
				d.cur.tlsc = c.tls // for Exchange.TLS; plaintext pays no store
			}
			if c.phase == phaseIdle || c.phase == phaseWaiting {
				c.setPhase(phaseHead, cfg.HeaderReadTimeout)
			}
		}
		n, ev, err := d.takeParser().Parse(&d.cur.Request, buf)
		c.consume(n)
		if err != nil {
			d.failRequest(err)
			break
		}
		switch ev {
		case http1.NeedMore:
			d.submitBuilding()
			return
		case http1.HeadComplete:
			d.curHead = true
			c.setPhase(phaseBody, cfg.BodyReadTimeout)
			if d.streamBody() { // the route streams its body, or it was refused (inbody.go)
				continue
			}
			if d.cur.Request.Expect100 {
				d.emit(http1.AppendContinue(nil))
			}
		case http1.MessageComplete:
			ex := d.cur
			d.cur = nil
			c.setPhase(phaseWaiting, 0)
			if !ex.Request.KeepAlive || c.srv.draining.Load() {
				c.stopReading()
			}
			if upgrade := ex.Request.Header("Upgrade"); upgrade != "" { // one look for h2c and WebSocket
				if cfg.H2C && !c.isTLS() && !c.readingStopped() && d.head == nil && d.building == nil {
					if settings, ok := wantsH2c(&ex.Request, upgrade); ok && d.upgradeH2c(ex, settings) {
						return // the connection speaks HTTP/2 now (h2upgrade.go)
					}
				}
				if !cfg.Inline && wantsWebSocket(&ex.Request, upgrade) {
					d.upgrading = true
				}
			}
			d.dispatch(ex, &clock)
			if c.proto != d {
				c.proto.serve() // upgraded inline: the rest is WebSocket (wsupgrade.go)
				return
			}
		}
	}
	d.submitBuilding()
}

// dispatch serves ex inline or adds it to the batch for a worker. Inline,
// clock (nil: none) is the clock carry from the request served before ex
// in the same serve call, and takes ex's for the next.
func (d *h1Driver) dispatch(ex *Exchange, clock *int64) {
	c := d.c
	d.inflight++
	if c.config().Inline {
		ex.resp = (*inlineResponder)(c)
		if clock != nil {
			ex.clock = *clock
		}
		c.srv.serve(ex)
		if clock != nil {
			*clock = ex.clock
		}
		if ex.ws != nil {
			d.upgradeInline(ex)
			return
		}
		keep := ex.Request.KeepAlive && !ex.wantsClose() && !c.srv.draining.Load()
		if d.head != nil { // behind a streamed-body request, still on a worker
			d.emit(ex.appendResponse(nil, keep, c.config().ServerName))
		} else {
			c.writeInline(ex, keep)
		}
		putExchange(ex)
		d.inflight--
		if !keep {
			c.closeWhenDone()
		}
		return
	}
	if d.building == nil {
		d.building = getBatch(c)
	}
	d.building.exs = append(d.building.exs, ex)
}

// writeInline adds an inline response to the callback's output. A body
// over maxPooledBody (a file an inline App read whole) goes out from
// ex.Body itself, after the output before it, instead of being copied
// into c.out: a megabyte copied and allocated per response was most of
// what such a response cost.
func (c *conn) writeInline(ex *Exchange, keep bool) {
	out, framing, trailers := ex.appendResponseHead(c.out, keep, c.config().ServerName)
	if framing != http1.FramingLength || len(ex.Body) <= maxPooledBody {
		c.out = ex.appendResponseBody(out, framing, trailers)
		return
	}
	c.writeWire2(out, ex.Body)
	c.out = out[:0]
}

// submitBuilding queues the batch filled in this callback and hands it to a
// worker, or answers it with 503 when every worker is busy.
func (d *h1Driver) submitBuilding() {
	c := d.c
	b := d.building
	if b == nil {
		return
	}
	d.building = nil
	b.reqs = len(b.exs)
	b.direct = d.canWriteDirect(b)
	if b.direct && c.isTLS() && !c.responded {
		c.responded, b.firstTLS = true, true
	}
	d.enqueue(b)
	if err := c.config().Workers.submit(b); err != nil {
		// One 503 (it says Connection: close) sheds this connection's load;
		// the other requests of the batch are dropped with it.
		b.out = c.srv.appendRejected(b.out, b.exs[0])
		b.closeAfter = true
		b.done = true
		c.srv.logDebug("worker pool full; answered 503", c)
		d.collect()
	}
}

func (d *h1Driver) enqueue(b *batch) {
	if d.tail == nil {
		d.head, d.tail = b, b
	} else {
		d.tail.next = b
		d.tail = b
	}
}

// emit queues bytes that are not a handler's response (100 Continue, error
// responses) in their place in the response order.
func (d *h1Driver) emit(p []byte) {
	d.submitBuilding()
	if d.head == nil {
		d.c.out = append(d.c.out, p...)
		return
	}
	b := getBatch(d.c)
	b.out = append(b.out, p...)
	b.done = true
	d.enqueue(b)
}

// failRequest answers a framing or limit violation and closes: nothing sent
// after it on this connection is executed. A request whose head was
// complete goes to the handler, refused, to be answered through the
// application's error path; one that is not gets the engine's own answer.
func (d *h1Driver) failRequest(err error) {
	c := d.c
	status := 400
	var perr *http1.Error
	if errors.As(err, &perr) {
		status = perr.Status
	}
	if d.cur != nil && d.curHead {
		// The head is in: the handler answers the refusal (Refused).
		ex := d.cur
		d.cur = nil
		ex.refused, ex.refusedErr = status, err
		ex.Request.KeepAlive = false
		c.stopReading()
		c.discardInput()
		c.setPhase(phaseWaiting, 0)
		d.dispatch(ex, nil)
		return
	}
	d.dropPartial()
	c.closeWhenDone()
	d.emit(http1.AppendError(nil, status, 0))
	c.discardInput()
}

// dropPartial forgets the request being parsed.
func (d *h1Driver) dropPartial() {
	if d.cur != nil {
		putExchange(d.cur)
		d.cur = nil
	}
}

// onBatchDone runs on the loop when a worker hands a batch back.
func (d *h1Driver) onBatchDone() {
	c := d.c
	if c.closed {
		d.releaseFinished()
		return
	}
	c.beginLoopTask()
	d.collect()
	if d.upgrading && d.head == nil {
		d.upgrading = false // answered without an upgrade: parse on
	}
	c.resumeIfPaused()
	c.finishCallback()
}

// collect moves the responses of finished batches at the head of the
// queue, in order, to the output.
func (d *h1Driver) collect() {
	d.c.loopOnly("h1Driver.collect")
	c := d.c
	for d.head != nil && d.head.done {
		b := d.head
		d.head = b.next
		if d.head == nil {
			d.tail = nil
		}
		switch {
		case b.writeErr != nil:
			c.srv.logDebug("write failed: "+b.writeErr.Error(), c)
			c.abort()
		case b.cipher:
			// A worker's ciphertext that did not fit the socket: it goes
			// first (c.out was empty when the batch was queued).
			c.writeCipher(b.out)
		default:
			c.out = append(c.out, b.out...)
		}
		d.inflight -= b.reqs
		if b.closeAfter {
			c.closeWhenDone()
		}
		b.release()
	}
	if c.intent == intentPeerDone && !d.queued() {
		c.closeWhenDone() // the client has gone quiet: its responses are out
	}
	d.sendContinue() // asked for while its batch waited behind others (inbody.go)
}

// collectSettled collects a direct batch its worker settled (direct.go)
// and reports whether it did.
func (d *h1Driver) collectSettled() bool {
	if !d.collectDirect() {
		return false
	}
	d.collect()
	return true
}

// releaseFinished releases done batches of a closed connection.
func (d *h1Driver) releaseFinished() {
	for d.head != nil && d.head.done {
		b := d.head
		d.head = b.next
		b.release()
	}
	if d.head == nil {
		d.tail = nil
	}
}

// endCallback gives back the parser of a connection between requests and
// takes back a direct batch the loop needs to go on.
func (d *h1Driver) endCallback() {
	c := d.c
	d.releaseIdleParser()
	if d.head != nil && (d.head.next != nil || c.paused || c.closingWhenDone()) && d.collectDirect() {
		d.collect() // the loop needs the head back: do not leave it to the sweep
	}
}

// queued: responses are still to be written (dispatched, or waiting in
// order behind one that is).
func (d *h1Driver) queued() bool { return d.head != nil || d.building != nil }

// quiet: nothing of a request received and nothing in flight.
func (d *h1Driver) quiet() bool { return d.cur == nil && d.inflight == 0 }

// readTimeout answers a request whose head or body stopped arriving with a
// 408 and closes after it. It reports false when responses are still
// queued: then the connection is closed at once (a 408 cannot overtake
// them, and a client that stalls mid-request behind them is not waited for).
func (d *h1Driver) readTimeout() bool {
	c := d.c
	if d.in != nil {
		return d.bodyTimeout() // a streamed body (inbody.go)
	}
	if d.queued() {
		return false
	}
	c.closeWhenDone()
	d.dropPartial()
	c.out = http1.AppendError(c.out, 408, 0)
	return true
}

// writable runs once the loop's output has been handed to gnet: a stream
// waiting for the write side may get it now.
func (d *h1Driver) writable() {
	if d.grantWait != nil && !d.c.closed {
		d.tryGrant()
	}
}

// goAway: HTTP/1 has no goodbye for an idle connection; it is closed.
func (d *h1Driver) goAway() {}

// tick runs at every sweep: a detached response's keep-alive write.
func (d *h1Driver) tick(now int64) {
	if d.detached != nil {
		d.detached.tick(now)
	}
}

// cancelInFlight ends the requests still with their handlers: the
// connection is closing.
func (d *h1Driver) cancelInFlight() {
	d.eachInFlight(func(ex *Exchange) { ex.cancel.cancel(context.Canceled) })
}

// cancelAtClientShut cancels the contexts of the requests in flight at a
// client's half-close; their responses still go out (exchangeClientShut).
func (d *h1Driver) cancelAtClientShut() {
	d.eachInFlight(func(ex *Exchange) { ex.cancel.cancelAtClientShut() })
}

// eachInFlight calls f for each exchange whose handler may still be
// running. It looks at the head batch first (collectDirect): a worker
// still on a direct batch hands it back through Execute from then on, and
// one settling it keeps its exchanges until then, so they can be read
// here.
func (d *h1Driver) eachInFlight(f func(*Exchange)) {
	d.collectDirect()
	for b := d.head; b != nil; b = b.next {
		if !b.done && !b.settling() {
			for _, ex := range b.exs {
				f(ex)
			}
		}
	}
}

// close runs from OnClose: cancel what is in flight and free what the loop
// owns. Batches still on workers are released when they come back.
func (d *h1Driver) close() {
	if d.detached != nil {
		d.detached.finishGone()
	}
	d.cancelInFlight()
	d.releaseFinished()
	if d.building != nil {
		d.building.release()
		d.building = nil
	}
	d.abortBody()
	d.dropPartial()
	d.releaseParser()
}
