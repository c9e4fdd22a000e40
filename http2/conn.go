package http2

import (
	"bytes"
	"errors"
	"time"

	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Error codes used here, under shorter names.
const (
	ErrCodeNo              = xh2.ErrCodeNo
	ErrCodeProtocol        = xh2.ErrCodeProtocol
	ErrCodeInternal        = xh2.ErrCodeInternal
	ErrCodeFlowControl     = xh2.ErrCodeFlowControl
	ErrCodeStreamClosed    = xh2.ErrCodeStreamClosed
	ErrCodeFrameSize       = xh2.ErrCodeFrameSize
	ErrCodeRefusedStream   = xh2.ErrCodeRefusedStream
	ErrCodeCancel          = xh2.ErrCodeCancel
	ErrCodeEnhanceYourCalm = xh2.ErrCodeEnhanceYourCalm
	errCodeCompression     = xh2.ErrCodeCompression
)

// Errors returned by the write methods.
var (
	// ErrStreamClosed: the stream is reset or unknown, or its response
	// has ended; nothing more can be sent on it.
	ErrStreamClosed = errors.New("http2: stream closed")
	// ErrConnClosed: the connection failed or has finished.
	ErrConnClosed = errors.New("http2: connection closed")
	// ErrHeadersSent: response headers were already written on the stream.
	ErrHeadersSent = errors.New("http2: response headers already sent")
	// ErrNoHeaders: DATA or trailers before the response headers.
	ErrNoHeaders = errors.New("http2: response headers not sent yet")
	// ErrBadSettings: an HTTP2-Settings header (h2c upgrade) that does not
	// decode to valid SETTINGS.
	ErrBadSettings = errors.New("http2: invalid HTTP2-Settings")
)

// Conn is the server side of one HTTP/2 connection, without I/O: the
// caller feeds it the bytes read from the peer (Feed), takes the events
// they produce (Next), answers streams (WriteHeaders, WriteData,
// WriteTrailers, ResetStream, Release) and writes what Output returns.
//
// A Conn is not safe for concurrent use: one owner (the engine's event
// loop) makes every call.
type Conn struct {
	cfg Config

	rd      bytes.Reader
	fr      *xh2.Framer // reads frames; made lazily, dropped when idle
	frBig   bool        // fr has read a large frame (holds a large buffer)
	dec     *hpack.Decoder
	enc     *hpack.Encoder
	encBuf  bytes.Buffer
	sink    sink
	wfr     *xh2.Framer // writes frames into sink
	wfrBig  bool
	hb      headerBlock
	events  eventQueue
	dataOut bool // an EventData referencing fr's buffer is queued

	prefaceLeft int  // bytes of the client preface still expected
	gotSettings bool // the peer's first SETTINGS arrived
	deadline    time.Time
	// settingsAcked: the peer acknowledged our SETTINGS, which it must
	// do by settingsDeadline.
	settingsAcked    bool
	settingsDeadline time.Time

	streams     map[uint32]*stream
	maxClientID uint32 // highest stream id the peer opened
	active      int    // open or half-closed streams
	handlers    int    // delivered and not released

	// Flow control.
	recvWindow     int64 // connection: what the peer may still send
	connUnacked    int   // returned bytes not yet announced
	sendWindow     int64 // connection: what we may still send
	peerInitWindow int32
	peerMaxFrame   uint32

	// Output.
	ctl           []byte // control frames and HEADERS, sent before DATA
	ctlCount      int    // answers to the peer queued in ctl (flood cap)
	ready         []*stream
	queued        int // DATA bytes queued over all streams
	blocked       []*stream
	maxBlockBytes int // cap on an encoded header block (CONTINUATION flood)
	resetScore    int
	idleFrames    int // frames in a row that did nothing (Config.MaxIdleFrames)

	// lateRST: streams whose response has ended while the request body
	// still arrives, to be reset (NO_ERROR) at the second Tick after
	// (resetLater); tickGen counts Ticks.
	lateRST []lateReset
	tickGen uint64

	// Shutdown.
	goAwaySent bool
	peerGoAway bool
	fatal      bool
	lastErr    error
}

// NewConn returns a server connection that expects the client preface.
// now is the time the connection was accepted (for PrefaceDeadline). The
// server's SETTINGS and connection WINDOW_UPDATE are queued at once.
func NewConn(cfg Config, now time.Time) *Conn {
	cfg.setDefaults()
	c := &Conn{
		cfg:              cfg,
		prefaceLeft:      len(xh2.ClientPreface),
		deadline:         now.Add(cfg.PrefaceTimeout),
		settingsDeadline: now.Add(cfg.SettingsTimeout),
		streams:          make(map[uint32]*stream),
		recvWindow:       int64(cfg.ConnWindow),
		sendWindow:       initialWindow,
		peerInitWindow:   initialWindow,
		peerMaxFrame:     minMaxFrameSize,
	}
	c.maxBlockBytes = 2*int(cfg.MaxHeaderListSize) + int(cfg.MaxFrameSize) + frameHeaderLen
	c.dec = hpack.NewDecoder(4096, c.onField)
	c.dec.SetMaxStringLength(2 * c.maxBlockBytes) // the block cap bounds it first
	c.enc = hpack.NewEncoder(&c.encBuf)
	c.enc.SetMaxDynamicTableSizeLimit(maxEncoderTable)
	c.writeFrames(&c.ctl, func(w *xh2.Framer) {
		settings := []xh2.Setting{
			{ID: xh2.SettingMaxConcurrentStreams, Val: cfg.MaxConcurrentStreams},
			{ID: xh2.SettingInitialWindowSize, Val: cfg.StreamWindow},
			{ID: xh2.SettingMaxFrameSize, Val: cfg.MaxFrameSize},
			{ID: xh2.SettingMaxHeaderListSize, Val: cfg.MaxHeaderListSize},
		}
		if cfg.EnableConnectProtocol {
			settings = append(settings, xh2.Setting{ID: xh2.SettingEnableConnectProtocol, Val: 1})
		}
		w.WriteSettings(settings...)
		if cfg.ConnWindow > initialWindow {
			w.WriteWindowUpdate(0, cfg.ConnWindow-initialWindow)
		}
	})
	return c
}

// PrefaceDeadline is when the client preface and first SETTINGS must have
// arrived; the zero time once they have. Tick enforces it.
func (c *Conn) PrefaceDeadline() time.Time {
	if c.gotSettings {
		return time.Time{}
	}
	return c.deadline
}

// Tick tells the connection the time: past PrefaceDeadline the connection
// fails (Finished reports true; nothing is sent but what is queued); past
// Config.SettingsTimeout (counted from NewConn) without the peer's SETTINGS
// acknowledgement it fails with GOAWAY SETTINGS_TIMEOUT, once the preface
// is in (before, the preface timeout applies).
func (c *Conn) Tick(now time.Time) {
	if c.fatal {
		return
	}
	if !c.gotSettings && now.After(c.deadline) {
		c.fatal, c.lastErr = true, errors.New("http2: preface timeout")
		c.ctl = c.ctl[:0]
		c.dropAllOutput()
		return
	}
	if c.gotSettings && !c.settingsAcked && now.After(c.settingsDeadline) {
		c.fail(xh2.ErrCodeSettingsTimeout, "SETTINGS not acknowledged in time")
		return
	}
	c.tickGen++
	c.sendLateResets()
}

// Err reports why the connection failed (nil if it did not).
func (c *Conn) Err() error { return c.lastErr }

// Feed consumes frames from p, the bytes received and not yet consumed,
// and reports how many bytes it used: whole frames only, so the caller
// keeps the rest and passes it again, with more, next time. It stops early
// after a frame that queued an EventData (whose Data points into a buffer
// the next Feed reuses): drain Next, then Feed the rest. A frame needs at
// most 9 + Config.MaxFrameSize bytes buffered (NeedBytes). After the
// connection fails Feed consumes everything and does nothing.
func (c *Conn) Feed(p []byte) int {
	n := 0
	c.dataOut = false
	if c.fatal {
		return len(p)
	}
	if c.prefaceLeft > 0 {
		off := len(xh2.ClientPreface) - c.prefaceLeft
		m := min(len(p), c.prefaceLeft)
		if string(p[:m]) != xh2.ClientPreface[off:off+m] {
			c.fatal, c.lastErr = true, errors.New("http2: bad client preface")
			c.ctl = c.ctl[:0]
			return len(p)
		}
		c.prefaceLeft -= m
		n = m
	}
	for !c.fatal && !c.dataOut && len(p)-n >= frameHeaderLen {
		h := p[n : n+frameHeaderLen]
		length := uint32(h[0])<<16 | uint32(h[1])<<8 | uint32(h[2])
		if length > c.cfg.MaxFrameSize {
			c.fail(ErrCodeFrameSize, "frame too large")
			return len(p)
		}
		end := n + frameHeaderLen + int(length)
		if len(p) < end {
			break
		}
		c.readFrame(p[n:end])
		n = end
	}
	if c.fatal {
		return len(p)
	}
	c.shrinkIfIdle()
	return n
}

// NeedBytes is the largest buffered input Feed may need to make progress:
// one whole frame with its header.
func (c *Conn) NeedBytes() int { return frameHeaderLen + int(c.cfg.MaxFrameSize) }

// Next returns the next event, if any. Call it until it reports false
// after every Feed, Output, Release and Consumed.
func (c *Conn) Next() (Event, bool) { return c.events.pop() }

// readFrame parses one whole frame with x/net's Framer and handles it.
func (c *Conn) readFrame(b []byte) {
	if c.fr == nil {
		c.fr = xh2.NewFramer(nil, &c.rd)
		c.fr.SetReuseFrames()
		c.fr.SetMaxReadFrameSize(c.cfg.MaxFrameSize)
	}
	if len(b) > 4096+frameHeaderLen {
		c.frBig = true
	}
	c.rd.Reset(b)
	f, err := c.fr.ReadFrame()
	if err != nil {
		c.frameError(b, err)
		return
	}
	if !c.gotSettings {
		sf, ok := f.(*xh2.SettingsFrame)
		if !ok || sf.IsAck() {
			c.fail(ErrCodeProtocol, "first frame is not SETTINGS")
			return
		}
	}
	c.handleFrame(f)
}

// frameError maps an error from the Framer to a connection or stream error.
func (c *Conn) frameError(b []byte, err error) {
	var se xh2.StreamError
	switch {
	case errors.As(err, &se):
		typ := xh2.FrameType(b[3])
		if typ == xh2.FrameHeaders || typ == xh2.FrameContinuation {
			// The header block was not decoded: HPACK state is lost.
			c.fail(ErrCodeProtocol, err.Error())
			return
		}
		if st := c.streams[se.StreamID]; st != nil && !st.closed() {
			c.resetStream(st, se.Code)
		} else if se.StreamID > c.maxClientID {
			c.fail(ErrCodeProtocol, "frame on idle stream")
		} else {
			c.queueRST(se.StreamID, se.Code)
		}
	default:
		code := ErrCodeProtocol
		var ce xh2.ConnectionError
		if errors.As(err, &ce) {
			code = ErrCode(ce)
		} else if errors.Is(err, xh2.ErrFrameTooLarge) {
			code = ErrCodeFrameSize
		}
		if d := c.fr.ErrorDetail(); d != nil {
			err = d
		}
		c.fail(code, err.Error())
	}
}

// fail ends the connection with a connection error: everything queued is
// dropped, GOAWAY carries the code, and Finished reports true once Output
// has returned it.
func (c *Conn) fail(code ErrCode, reason string) {
	if c.fatal {
		return
	}
	c.fatal = true
	c.lastErr = xh2.ConnectionError(code)
	if reason != "" {
		c.lastErr = errors.New("http2: " + code.String() + ": " + reason)
	}
	c.ctl, c.ctlCount = c.ctl[:0], 0
	c.dropAllOutput()
	c.writeFrames(&c.ctl, func(w *xh2.Framer) {
		w.WriteGoAway(c.maxClientID, code, nil)
	})
	c.goAwaySent = true
	c.cfg.Counters.noteGoAway(code)
}

// Shutdown starts a graceful shutdown: GOAWAY (NO_ERROR) announces the
// last stream the peer opened; streams after it are ignored, those up to
// it finish; Finished reports true once they have and the output is taken.
func (c *Conn) Shutdown() {
	if c.goAwaySent || c.fatal {
		return
	}
	c.goAwaySent = true
	c.writeFrames(&c.ctl, func(w *xh2.Framer) {
		w.WriteGoAway(c.maxClientID, ErrCodeNo, nil)
	})
	c.cfg.Counters.noteGoAway(ErrCodeNo)
}

// Finished reports that the connection has nothing more to do: write what
// Output returned, then close it. True after a connection error (GOAWAY
// queued), a preface timeout, or a GOAWAY (either side's) once every
// stream is closed and released and the output is taken.
func (c *Conn) Finished() bool {
	if len(c.ctl) > 0 {
		return false
	}
	if c.fatal {
		return true
	}
	return (c.goAwaySent || c.peerGoAway) && c.active == 0 && c.handlers == 0 && c.queued == 0 && len(c.ready) == 0
}

// shrinkIfIdle drops the frame reader and writer (and their buffers, up to
// a frame each) when no stream is active, so an idle connection holds little.
func (c *Conn) shrinkIfIdle() {
	if c.active != 0 || c.hb.active {
		return
	}
	if c.frBig {
		c.fr, c.frBig = nil, false
	}
	if c.wfrBig && len(c.ready) == 0 {
		c.wfr, c.wfrBig = nil, false
	}
}
