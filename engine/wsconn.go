//go:build unix

package engine

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gwist/gwist/websocket"
)

// A WebSocket connection (RFC 6455) is the third protocol driver
// (wsdriver.go): after the upgrade the connection carries frames, not
// exchanges. It holds no goroutine: the loop parses frames and queues the
// messages for the application's callbacks, which a worker runs one at a
// time, in order (wsevents.go); the application's writes are framed on the
// writer's goroutine and handed to the loop, which writes them through gnet
// (and TLS) like any response. An idle connection holds this struct, its
// frame reader's state and nothing else: no buffer, no goroutine, no timer
// (keepalive runs on the loop's sweep).

// Errors of WSConn's writes.
var (
	// ErrWSClosed: the WebSocket is closing or closed (a close frame was
	// sent or received, or the connection is gone); nothing was queued.
	ErrWSClosed = errors.New("gwist: the WebSocket is closed")
)

// WSHandler receives a WebSocket connection's events. The engine calls its
// methods one at a time per connection, in order: OnOpen first, OnClose
// last and exactly once. They run on the worker pool (on the event loop for
// an Inline server, where they must not block).
type WSHandler interface {
	// OnOpen runs once the 101 (or the HTTP/2 200) has been queued.
	OnOpen(ws *WSConn)
	// OnMessage runs for every complete data message (op is
	// websocket.OpText, valid UTF-8, or websocket.OpBinary). data is the
	// engine's, valid only until OnMessage returns: copy what you keep.
	OnMessage(ws *WSConn, op websocket.Opcode, data []byte)
	// OnClose runs once, after the last OnMessage: code and reason are the
	// peer's close frame, the close frame the engine sent for a protocol
	// violation, or websocket.CloseAbnormal (1006) when the connection
	// ended without a close handshake (the peer vanished, no pong came).
	OnClose(ws *WSConn, code websocket.CloseCode, reason string)
}

// WSConfig holds a WebSocket endpoint's limits and timers; the zero value
// of every field means its default. One WSConfig is shared by every
// connection of the endpoint: do not change it once connections use it.
type WSConfig struct {
	// MaxMessage caps a received message after reassembly and
	// decompression (default 1 MiB); a bigger one closes with 1009.
	MaxMessage int64
	// MaxFrame caps a received frame's payload (default MaxMessage).
	MaxFrame int64
	// PingInterval: a ping is sent when nothing has been received for this
	// long (default 30 s; negative: never).
	PingInterval time.Duration
	// PongTimeout: the connection is closed (OnClose sees 1006) when
	// nothing, pong or otherwise, arrives within this long after a ping
	// (default 15 s).
	PongTimeout time.Duration
	// IdleTimeout closes the connection with 1001 when no data message has
	// gone either way for this long (default 0: never; pings and pongs do
	// not count).
	IdleTimeout time.Duration
	// CloseTimeout bounds the wait for the peer's close frame after the
	// server sent one (default 5 s); then the connection is closed.
	CloseTimeout time.Duration
	// MaxQueued caps the bytes written and not yet taken by the socket
	// (default 256 KiB, like Config.MaxStreamQueued). Beyond it
	// WriteMessage blocks and TryWriteMessage fails with ErrSlowClient.
	MaxQueued int
	// MaxReadQueue caps the received messages waiting for OnMessage
	// (default 16), and MaxReadQueueBytes their bytes (default 256 KiB):
	// beyond either the engine stops reading the socket until the
	// callbacks catch up, so TCP flow control slows the peer down.
	MaxReadQueue      int
	MaxReadQueueBytes int
}

// Defaults of WSConfig's fields.
const (
	DefaultWSMaxMessage        = 1 << 20
	DefaultWSPingInterval      = 30 * time.Second
	DefaultWSPongTimeout       = 15 * time.Second
	DefaultWSCloseTimeout      = 5 * time.Second
	DefaultWSMaxQueued         = 256 << 10
	DefaultWSMaxReadQueue      = 16
	DefaultWSMaxReadQueueBytes = 256 << 10
)

// WithDefaults returns cfg with its zero fields set to their defaults.
func (cfg WSConfig) WithDefaults() WSConfig {
	if cfg.MaxMessage <= 0 {
		cfg.MaxMessage = DefaultWSMaxMessage
	}
	if cfg.MaxFrame <= 0 || cfg.MaxFrame > cfg.MaxMessage {
		cfg.MaxFrame = cfg.MaxMessage
	}
	if cfg.PingInterval == 0 {
		cfg.PingInterval = DefaultWSPingInterval
	}
	if cfg.PongTimeout <= 0 {
		cfg.PongTimeout = DefaultWSPongTimeout
	}
	if cfg.CloseTimeout <= 0 {
		cfg.CloseTimeout = DefaultWSCloseTimeout
	}
	if cfg.MaxQueued <= 0 {
		cfg.MaxQueued = DefaultWSMaxQueued
	}
	if cfg.MaxReadQueue <= 0 {
		cfg.MaxReadQueue = DefaultWSMaxReadQueue
	}
	if cfg.MaxReadQueueBytes <= 0 {
		cfg.MaxReadQueueBytes = DefaultWSMaxReadQueueBytes
	}
	return cfg
}

// WSConn is one WebSocket connection. Its write methods, Close and the
// accessors may be called from any goroutine.
type WSConn struct {
	// Its fields are grouped by who touches them for every message, so
	// that a message costs few cache lines on the loop's core and on the
	// worker's: set once and read by both, the loop's own, those under mu
	// that both touch for every message, the writers', and last those
	// seldom used; one 64-byte line each but the last (the 448-byte size
	// class, with the root package's WSConn around it, keeps them aligned;
	// size_test.go).

	c   *conn
	cfg *WSConfig
	h   WSHandler
	// h2s: the HTTP/2 stream this WebSocket runs on (RFC 8441); nil for
	// an upgraded HTTP/1.1 connection (wstransport.go).
	h2s *h2Stream
	// fd: c's socket, which the writers write to while they hold the
	// write side (wsdirect.go); not the conn's, whose line the loop writes.
	fd int
	// Owner is the layer above's object for this connection (the root
	// package's WSConn), set from WSUpgrade.Owner.
	Owner any

	// Loop only (the driver, wsdriver.go).
	r        *websocket.Reader
	lastRead int64     // server clock of the last bytes received
	lastData int64     // of the last data message either way (IdleTimeout)
	pingSent int64     // server clock of the unanswered ping; 0 = none
	closeAt  int64     // deadline for the peer's close frame; 0 = not waiting
	closing  wsClosing // how far the close handshake has gone
	paused   bool      // reading stopped: the read queue is full, or the peer does not read
	// owesPong: a ping came while the output had no room for its pong;
	// pongOwed is its payload. Reading stops until it is sent (wsflood.go).
	owesPong bool
	openDone bool // counted in Server.wsconns
	inEnded  bool // HTTP/2: nothing more is read
	// finalInput: the peer's FIN is behind the input parsed now (peerShut):
	// its messages are queued past the read queue's bounds, for it is all
	// there is (and at most MaxInboundBytes).
	finalInput bool
	// gotData: the peer has sent a data message. Until it has, reading goes
	// on while gnet holds output (outputHeldFromEOF), so that a ping flood
	// is still seen (wsflood.go).
	gotData bool
	// The loop's view of the queues, as of its last look under mu (at each
	// read, and at each queueing): queueFull, the callbacks' queue is at
	// its bound (only the worker empties it, and then tells the loop,
	// wsResume); writersQueued, the writers' queuedLen.
	queueFull     bool
	writersQueued int
	// loopSpare: a payload buffer the worker gave back (spare), for the
	// loop's next message.
	loopSpare *[]byte

	// Under mu, and what both cores touch for every message: one line.
	mu      sync.Mutex
	running bool   // a worker (or the loop) runs the callbacks
	wire    wsWire // who writes to the socket (wsdirect.go)
	// loopOut: while the writers hold the socket, the loop has frames of
	// its own in c.out that are not yet queued; writers queue behind them.
	loopOut bool
	onLoop  bool // an Inline callback runs: the loop flushes after it
	// closeReq: Close was called (the frame goes out after what is queued).
	closeReq  bool
	writeDone bool    // no more writes: a close frame is queued, or the connection is gone
	isGone    bool    // the transport is gone (OnClose ran, or the stream ended)
	closedEv  bool    // OnClose is queued: nothing more is
	retrySubm bool    // the pool was full: the sweep submits again
	handoff   handoff // to the loop: wsFlush
	// events: the callbacks' queue (wsevents.go); nil until an event has
	// to wait, and again once the sweep finds it empty.
	events *wsEventQueue
	// The write side: framed output waiting for the loop. shared holds
	// frames shared with other connections (Hub.Broadcast), all of which
	// go before buf.
	queuedLen int // len(buf) plus the lengths in shared
	// cb: the batch whose worker runs the callbacks now; nil when none
	// runs or they run on the loop.
	cb *batch
	// spareBatch and spare: the batch of the last callbacks' run that ran
	// a message, and the payload buffer of the last message run that had
	// one (up to wsSparePayloadMax), kept for the next message instead of
	// a trip through their pools; the sweep takes them back from a
	// connection that is quiet (trimEvents).
	spareBatch *batch
	spare      *[]byte

	// The writers' (under mu), which the loop seldom touches.
	buf      []byte
	bufp     *[]byte             // buf's pool entry
	backlog  atomic.Int64        // gnet's outbound buffer as the loop last saw it; stored only when it changes
	deflater *websocket.Deflater // permessage-deflate's compressor; nil without it
	wake     chan struct{}       // closed when blocked writers may retry
	// directWrites counts the frames the writers wrote themselves
	// (Server.pipe.wsDirect; here so that they need not read the conn).
	directWrites *atomic.Uint64

	// Seldom used.
	// nc: the net.Conn this WebSocket runs on, outside the event loop (a
	// connection hijacked from net/http, wsnet.go); c is nil then.
	nc          *netWS
	shared      [][]byte
	closeCode   websocket.CloseCode
	closeReason string
	hubs        []*WSHub
	subp        string
	deflate     *websocket.DeflateParams
	h2in        []byte // HTTP/2: received bytes not yet fed to r (loop only)
	pongOwed    []byte // loop only
	// loopG is the loop's goroutine (loopState.goroutineID), known once an
	// Inline callback has run; under mu. It tells that callback's writes
	// from other goroutines' (makeRoomOnLoop).
	loopG uint64
}

// wsClosing is how far a WebSocket's close handshake (RFC 6455 section
// 7) has gone, as the loop sees it. It only moves forward. Loop only.
type wsClosing uint8

const (
	// wsOpen: no close frame either way.
	wsOpen wsClosing = iota
	// wsCloseReceived: the peer's close frame arrived while the callbacks
	// still ran messages queued before it. The answer waits for them, so
	// that their replies go out first (a worker asks for it when it reaches
	// the close, as WSConn.Close does), at most WSConfig.CloseTimeout.
	// Nothing more is read; data is no longer delivered.
	wsCloseReceived
	// wsCloseSent: the server's close frame is in the output; the peer's
	// is awaited (until WSConfig.CloseTimeout). Data is no longer
	// delivered.
	wsCloseSent
	// wsCloseDone: the peer's close frame arrived (and the server's went
	// out, or goes with the answer): the transport ends.
	wsCloseDone
)

// Subprotocol is the subprotocol the handshake selected ("" for none).
func (ws *WSConn) Subprotocol() string { return ws.subp }

// OverHTTP2 reports whether the WebSocket runs on an HTTP/2 stream (RFC
// 8441) rather than on an upgraded HTTP/1.1 connection.
func (ws *WSConn) OverHTTP2() bool { return ws.h2s != nil }

// Compressed reports whether permessage-deflate was negotiated.
func (ws *WSConn) Compressed() bool { return ws.deflate != nil }

// RemoteAddr is the peer's address.
func (ws *WSConn) RemoteAddr() net.Addr {
	if ws.nc != nil {
		return ws.nc.conn.RemoteAddr()
	}
	return ws.c.remote
}

// blocks: WriteMessage may wait for room (not on an Inline server's loop).
func (ws *WSConn) blocks() bool { return ws.nc != nil || !ws.c.config().Inline }

// WriteMessage sends one message (websocket.OpText, whose data must be
// valid UTF-8, or websocket.OpBinary). The message is framed at once and
// the event loop writes it. While more than WSConfig.MaxQueued bytes wait
// for the peer it blocks until they drain or the connection ends (on an
// Inline server, whose callbacks run on the loop, the loop writes out
// what was queued before (makeRoomOnLoop) and it fails with ErrSlowClient
// if that leaves no room). It fails with ErrWSClosed once a close frame
// was queued or the connection is gone.
func (ws *WSConn) WriteMessage(op websocket.Opcode, data []byte) error {
	return ws.write(op, data, true)
}

// TryWriteMessage is WriteMessage without blocking: beyond the cap it
// fails with ErrSlowClient and queues nothing.
func (ws *WSConn) TryWriteMessage(op websocket.Opcode, data []byte) error {
	return ws.write(op, data, false)
}

// WriteText sends s as a text message (see WriteMessage).
func (ws *WSConn) WriteText(s string) error {
	return ws.write(websocket.OpText, []byte(s), true)
}

// write frames one message and writes or queues it. wait: when the queue
// is at its cap, wait for room if the connection allows it (blocks);
// without wait, or where it does not, fail with ErrSlowClient.
func (ws *WSConn) write(op websocket.Opcode, data []byte, wait bool) error {
	if op != websocket.OpText && op != websocket.OpBinary {
		return errors.New("gwist: WriteMessage takes OpText or OpBinary")
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for {
		if ws.writeDone {
			return ErrWSClosed
		}
		if ws.hasRoom(len(data)) {
			break
		}
		if ws.makeRoomOnLoop() {
			continue
		}
		if !wait || !ws.blocks() {
			return ErrSlowClient
		}
		ws.releaseWire() // the loop drains the queue meanwhile (wsdirect.go)
		if ws.cb != nil {
			// The callbacks' worker leaves the pool's bound while a writer
			// waits for this peer (a streamed response does the same), so
			// peers that do not read cannot take the pool. It is usually
			// the callback itself that waits; if another goroutine does,
			// the connection's one callback worker is let go all the same.
			ws.c.config().Workers.leaveBound(ws.cb)
		}
		if ws.wake == nil {
			ws.wake = make(chan struct{})
		}
		wake := ws.wake
		ws.mu.Unlock()
		<-wake
		ws.mu.Lock()
	}
	direct := ws.mayWriteDirect()
	if direct && ws.deflater == nil && len(data) <= wsStackFrameData {
		// Framed on the writer's stack: a buffer the connection kept
		// would be one more cache line to fetch for every message.
		var stack [wsStackFrameData + websocket.MaxHeaderLen]byte
		return ws.sendDirect(websocket.AppendFrame(stack[:0], op, true, data))
	}
	ws.takeBuf()
	n := len(ws.buf)
	if ws.deflater != nil {
		ws.buf = ws.deflater.AppendMessage(ws.buf, op, data)
	} else {
		ws.buf = websocket.AppendFrame(ws.buf, op, true, data)
	}
	if direct {
		return ws.sendDirect(ws.buf)
	}
	ws.queuedLen += len(ws.buf) - n
	ws.schedule()
	return nil
}

// makeRoomOnLoop: an Inline callback cannot wait for room, but running on
// the loop it can make some. The replies before its own, still in the
// writers' queue (several messages of one read answered one after the
// other), are written to the socket now; then the room is looked at again.
// Without it, a reply that did not fit beside them failed with
// ErrSlowClient although the peer was reading. What the socket does not
// take stays in gnet's buffer and counts (backlog), as any output does.
// It reports whether it wrote; not for any goroutine but the loop's, and
// only while the loop runs the callbacks. Called with mu held, which it
// lets go meanwhile.
func (ws *WSConn) makeRoomOnLoop() bool {
	if !ws.onLoop || ws.queuedLen == 0 || ws.wire != wsWireLoop || ws.isGone ||
		ws.loopG == 0 || curGoroutineID() != ws.loopG {
		return false
	}
	ws.mu.Unlock()
	defer ws.mu.Lock()
	if ws.writeQueued(); !ws.c.closed {
		ws.storeBacklog()
	}
	return true
}

// hasRoom: n more bytes fit under MaxQueued (a message bigger than the
// cap goes when nothing waits). Called with mu held.
func (ws *WSConn) hasRoom(n int) bool {
	waiting := int64(ws.queuedLen) + ws.backlog.Load()
	return waiting == 0 || waiting+int64(n) <= int64(ws.cfg.MaxQueued)
}

// writeShared queues a frame shared with other connections, without
// copying it when nothing else is queued. It fails with ErrSlowClient
// beyond the cap. Called by Hub.Broadcast.
func (ws *WSConn) writeShared(frame []byte) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.writeDone {
		return ErrWSClosed
	}
	if !ws.hasRoom(len(frame)) {
		return ErrSlowClient
	}
	if ws.mayWriteDirect() {
		return ws.sendDirect(frame)
	}
	if len(ws.buf) > 0 {
		ws.buf = append(ws.buf, frame...) // shared frames go before buf
	} else {
		ws.shared = append(ws.shared, frame)
	}
	ws.queuedLen += len(frame)
	ws.schedule()
	return nil
}

// Close starts the close handshake: a close frame with code and reason
// goes out after what is queued, the peer's answer closes the connection
// (or WSConfig.CloseTimeout does), and OnClose runs. Closing twice does
// nothing. The code must be one a close frame may carry (1000, 1001,
// 1008, 1011, 3000-4999, ...); reason is cut to fit 123 bytes.
func (ws *WSConn) Close(code websocket.CloseCode, reason string) error {
	if !websocket.ValidCloseCode(code) {
		return errors.New("gwist: invalid close code")
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.closeLocked(code, reason)
	return nil
}

// closeLocked ends the writers and asks the loop for a close frame with
// code and reason after what they queued, unless they had ended. Called
// with mu held.
func (ws *WSConn) closeLocked(code websocket.CloseCode, reason string) {
	if ws.writeDone {
		return
	}
	ws.writeDone = true
	ws.closeReq, ws.closeCode, ws.closeReason = true, code, reason
	ws.wakeWriters()
	ws.schedule()
}

// schedule queues a flush on the loop unless one is queued or the loop
// flushes anyway. Called with mu held.
func (ws *WSConn) schedule() {
	if ws.nc != nil {
		ws.nc.signal()
		return
	}
	if ws.onLoop || ws.isGone || ws.wire == wsWireWriters {
		return // the loop flushes after the callback, or the grant's end hands it over
	}
	ws.handoff.post(ws.c.el, (*wsFlush)(ws)) // false: the engine is stopping, the connection goes with its loop
}

// wakeWriters lets blocked writers look again. Called with mu held.
func (ws *WSConn) wakeWriters() {
	if ws.wake != nil {
		close(ws.wake)
		ws.wake = nil
	}
}

// wsFlush is a WSConn as the loop's task.
type wsFlush WSConn

// Run writes what was queued. Loop only.
func (f *wsFlush) Run(context.Context) error {
	ws := (*WSConn)(f)
	c := ws.c
	if c.closed || !ws.live() {
		ws.mu.Lock()
		ws.handoff.taken()
		ws.mu.Unlock()
		return nil
	}
	c.beginLoopTask()
	if s := ws.h2s; s != nil {
		ws.flushOut()
		s.d.output()
	}
	c.finishCallback() // over HTTP/1, endCallback flushes (wsdriver.go)
	return nil
}

// flushOut moves what writers queued to the transport's output: over
// HTTP/1, shared frames are written as they are and the connection's own
// bytes go through c.out; over HTTP/2 both become the stream's DATA. A
// requested close frame goes last. What it writes is taken out under mu
// and written after: a failed write closes the connection at once, and
// its OnClose takes mu. Loop only.
func (ws *WSConn) flushOut() { ws.flush(false) }

// flush is flushOut; with hold (at the end of a callback), while the
// writers hold the socket, it also moves the loop's own frames to their
// queue (holdLoopOutputLocked), under the same lock. Loop only.
func (ws *WSConn) flush(hold bool) {
	ws.c.loopOnly("WSConn.flushOut")
	c := ws.c
	s := ws.h2s
	ws.mu.Lock()
	ws.handoff.taken()
	if ws.wire == wsWireWriters {
		if hold {
			ws.holdLoopOutputLocked()
		} else {
			ws.loopOut = true // what the loop now puts in c.out goes to the queue
		}
		ws.writersQueued = ws.queuedLen
		ws.mu.Unlock()
		return // the writers write; the grant's end hands their queue over
	}
	shared, buf, bufp := ws.shared, ws.buf, ws.bufp
	ws.shared, ws.buf, ws.bufp = nil, nil, nil
	ws.queuedLen, ws.writersQueued = 0, 0
	closeReq := ws.closeReq && (ws.closing == wsOpen || ws.closing == wsCloseReceived)
	code, reason := ws.closeCode, ws.closeReason
	ws.closeReq = false
	ws.mu.Unlock()
	if len(shared) > 0 && s == nil && len(c.out) > 0 {
		c.writeWire(c.out)
		c.out = c.out[:0]
	}
	for _, f := range shared {
		if c.closed {
			break
		}
		if s != nil {
			s.pend = append(s.pend, f...)
		} else {
			c.writeWire(f)
		}
	}
	out := ws.outBuf()
	*out = append(*out, buf...)
	if bufp != nil && cap(buf) <= 64<<10 {
		*bufp = buf[:0]
		wsBufPool.Put(bufp)
	}
	if closeReq {
		*out = appendCloseFrame(*out, code, reason)
	}
	ws.pumpOut()
	if closeReq {
		ws.closeSent()
	}
}

// appendCloseFrame appends a close frame; code 0 makes it empty (the
// answer to a close frame that carried no code).
func appendCloseFrame(out []byte, code websocket.CloseCode, reason string) []byte {
	if code == 0 {
		return append(out, 0x88, 0x00)
	}
	return websocket.AppendClose(out, code, reason)
}

// closeSent moves the close handshake on once the server's close frame is
// in the output: it waits for the peer's (until CloseTimeout), or, when
// the peer's came first, the transport ends. Loop only.
func (ws *WSConn) closeSent() {
	if ws.closing == wsCloseReceived {
		ws.closing = wsCloseDone
		ws.endTransport()
		return
	}
	ws.closing = wsCloseSent
	ws.closeAt = ws.c.srv.now() + int64(ws.cfg.CloseTimeout)
}

// noteBacklog records what the transport holds for the writers' cap (gnet's
// outbound buffer, or the HTTP/2 stream's bytes not yet framed) and wakes
// the writers blocked on it once it is under the cap. Loop only.
func (ws *WSConn) noteBacklog() {
	if ws.c.closed {
		return
	}
	if ob := ws.storeBacklog(); ob < int64(ws.cfg.MaxQueued) {
		ws.mu.Lock()
		if ws.wake != nil && int64(ws.queuedLen)+ob < int64(ws.cfg.MaxQueued) {
			ws.wakeWriters()
		}
		ws.mu.Unlock()
	}
}

// storeBacklog sets backlog to what the transport holds now and returns
// it. Loop only.
func (ws *WSConn) storeBacklog() int64 {
	var ob int64
	if s := ws.h2s; s != nil {
		ob = int64(len(s.pend))
	} else {
		ob = int64(ws.c.gc.OutboundBuffered())
	}
	if ws.backlog.Load() != ob {
		// Only when it changed: the writers read it for every message,
		// and a store takes its line from their core.
		ws.backlog.Store(ob)
	}
	return ob
}

// wsBufPool holds the write buffers of connections that have output in
// flight; an idle connection holds none.
var wsBufPool = sync.Pool{New: func() any { return new([]byte) }}

// takeBuf gives ws a pooled write buffer if it has none. Called with mu held.
func (ws *WSConn) takeBuf() {
	if ws.bufp == nil {
		ws.bufp = wsBufPool.Get().(*[]byte)
		ws.buf = (*ws.bufp)[:0]
	}
}

// giveBuf returns the write buffer to the pool. Called with mu held.
func (ws *WSConn) giveBuf() {
	if ws.bufp == nil {
		return
	}
	if cap(ws.buf) <= 64<<10 {
		*ws.bufp = ws.buf[:0]
		wsBufPool.Put(ws.bufp)
	}
	ws.buf, ws.bufp = nil, nil
}
