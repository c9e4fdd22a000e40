package gwist_test

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// h2wsClient is an RFC 8441 client: x/net's HTTP/2 Framer, one extended
// CONNECT stream, and the websocket package's frames in its DATA.
type h2wsClient struct {
	t      *testing.T
	conn   net.Conn
	fr     *xh2.Framer
	enc    *hpack.Encoder
	encBuf bytes.Buffer
	r      *websocket.Reader
	pend   []byte
	status string
	ended  bool // the server ended the stream
	reset  bool
	// writeMu, when set, serialises the Framer's writes (a test that sends
	// from one goroutine while another reads; see sendConcurrently), and
	// guards the send windows; readDelay slows each read.
	writeMu   *sync.Mutex
	readDelay time.Duration
	// With writeMu: send waits for the server's flow-control windows (the
	// connection's and the stream's), which the reader's WINDOW_UPDATEs
	// open; without, it sends regardless (a few hundred KB at most).
	windowOpen         *sync.Cond
	connWin, streamWin int64
}

// sendConcurrently lets send run on a goroutine of its own while another
// reads: writes are serialised, and send keeps within the server's
// windows.
func (c *h2wsClient) sendConcurrently() {
	c.writeMu = new(sync.Mutex)
	c.windowOpen = sync.NewCond(c.writeMu)
}

// locked runs f under writeMu, if there is one.
func (c *h2wsClient) locked(f func()) {
	if c.writeMu != nil {
		c.writeMu.Lock()
		defer c.writeMu.Unlock()
	}
	f()
}

// dialH2WS opens an HTTP/2 connection (TLS with ALPN h2, or h2c by prior
// knowledge), checks SETTINGS_ENABLE_CONNECT_PROTOCOL, and sends the
// extended CONNECT for path; status is the answer's :status.
func dialH2WS(t *testing.T, addr string, useTLS bool, path string) *h2wsClient {
	t.Helper()
	var conn net.Conn
	var err error
	scheme := "http"
	if useTLS {
		scheme = "https"
		conn, err = tls.Dial("tcp", addr, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost", NextProtos: []string{"h2"}})
	} else {
		conn, err = net.Dial("tcp", addr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	c := &h2wsClient{t: t, conn: conn, r: websocket.NewReader(websocket.Config{Client: true, MaxMessage: 16 << 20, MaxFrame: 16 << 20})}
	c.fr = xh2.NewFramer(conn, conn)
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.enc = hpack.NewEncoder(&c.encBuf)
	if _, err := io.WriteString(conn, xh2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	_ = c.fr.WriteSettings(xh2.Setting{ID: xh2.SettingInitialWindowSize, Val: 1 << 20})
	_ = c.fr.WriteWindowUpdate(0, 1<<24)
	f, err := c.fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	sf, ok := f.(*xh2.SettingsFrame)
	if !ok {
		t.Fatalf("first frame %T", f)
	}
	if v, ok := sf.Value(xh2.SettingEnableConnectProtocol); !ok || v != 1 {
		t.Fatal("SETTINGS_ENABLE_CONNECT_PROTOCOL not advertised")
	}
	c.connWin, c.streamWin = 65535, 65535
	if v, ok := sf.Value(xh2.SettingInitialWindowSize); ok {
		c.streamWin = int64(v)
	}
	_ = c.fr.WriteSettingsAck()
	for _, hf := range [][2]string{{":method", "CONNECT"}, {":protocol", "websocket"}, {":scheme", scheme},
		{":path", path}, {":authority", addr}, {"sec-websocket-version", "13"}} {
		_ = c.enc.WriteField(hpack.HeaderField{Name: hf[0], Value: hf[1]})
	}
	_ = c.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: c.encBuf.Bytes(), EndHeaders: true})
	for c.status == "" && !c.reset {
		c.readFrame()
	}
	return c
}

// readFrame reads one frame and handles it.
func (c *h2wsClient) readFrame() {
	c.t.Helper()
	time.Sleep(c.readDelay)
	f, err := c.fr.ReadFrame()
	if err != nil {
		c.t.Fatalf("reading a frame: %v", err)
	}
	switch f := f.(type) {
	case *xh2.MetaHeadersFrame:
		if f.StreamID == 1 {
			c.status = f.PseudoValue("status")
			c.ended = c.ended || f.StreamEnded()
		}
	case *xh2.DataFrame:
		if f.StreamID == 1 {
			c.pend = append(c.pend, f.Data()...)
			c.ended = c.ended || f.StreamEnded()
			if n := len(f.Data()); n > 0 {
				c.locked(func() {
					_ = c.fr.WriteWindowUpdate(0, uint32(n))
					_ = c.fr.WriteWindowUpdate(1, uint32(n))
				})
			}
		}
	case *xh2.RSTStreamFrame:
		if f.StreamID == 1 {
			c.reset = true
		}
	case *xh2.WindowUpdateFrame:
		c.locked(func() {
			switch f.StreamID {
			case 0:
				c.connWin += int64(f.Increment)
			case 1:
				c.streamWin += int64(f.Increment)
			}
			if c.windowOpen != nil {
				c.windowOpen.Broadcast()
			}
		})
	case *xh2.PingFrame:
		if !f.IsAck() {
			c.locked(func() { _ = c.fr.WritePing(true, f.Data) })
		}
	case *xh2.GoAwayFrame:
		c.t.Fatalf("GOAWAY %v", f.ErrCode)
	}
}

func (c *h2wsClient) send(op websocket.Opcode, payload []byte) {
	c.t.Helper()
	b := websocket.AppendMaskedFrame(nil, op, true, payload, testMask)
	for len(b) > 0 { // within the server's max frame size
		n := min(len(b), 16<<10)
		var err error
		c.locked(func() {
			for c.windowOpen != nil && min(c.connWin, c.streamWin) < int64(n) {
				c.windowOpen.Wait()
			}
			c.connWin -= int64(n)
			c.streamWin -= int64(n)
			err = c.fr.WriteData(1, false, b[:n])
		})
		if err != nil {
			c.t.Error(err) // not Fatal: send may run on a goroutine of its own
			return
		}
		b = b[n:]
	}
}

// next returns the next WebSocket event from the stream's DATA.
func (c *h2wsClient) next() websocket.Event {
	c.t.Helper()
	for {
		if ev, ok := c.r.Next(); ok {
			return ev
		}
		if err := c.r.Err(); err != nil {
			c.t.Fatalf("client reader: %v", err)
		}
		if n := c.r.Feed(c.pend); n > 0 {
			c.pend = c.pend[n:]
			continue
		}
		if c.ended || c.reset {
			c.t.Fatal("the stream ended before the event")
		}
		c.readFrame()
	}
}

// WebSocket over HTTP/2 (RFC 8441), over TLS (ALPN h2) and h2c: the
// setting is advertised, the extended CONNECT reaches the same handler and
// is answered 200, messages go both ways in DATA (a 300 KB one too, past
// the client's initial window), the close handshake ends the stream, and
// an extended CONNECT to a route that is not a WebSocket gets 405.
func TestWebSocketHTTP2(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(map[bool]string{false: "workers", true: "inline"}[inline], func(t *testing.T) { testWebSocketHTTP2(t, inline) })
	}
}

func testWebSocketHTTP2(t *testing.T, inline bool) {
	rec := &echoRecorder{}
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithInline(inline), gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(rec.handler(gwist.WSConfig{})))
	app.GET("/other", func(c *gwist.Ctx) error { return c.String(200, "not a websocket\n") })
	plain := startApp(t, app)
	secure := startTLS(t, app, serverTLSConfig(t))
	for i, tc := range []struct {
		name   string
		addr   string
		useTLS bool
	}{{"h2", secure, true}, {"h2c", plain, false}} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialH2WS(t, tc.addr, tc.useTLS, "/ws")
			if c.status != "200" {
				t.Fatalf(":status %q", c.status)
			}
			c.send(websocket.OpText, []byte("over h2"))
			if ev := c.next(); ev.Kind != websocket.EventMessage || string(ev.Payload) != "over h2" {
				t.Fatalf("got %v %q", ev.Kind, ev.Payload)
			}
			big := bytes.Repeat([]byte("h"), 300<<10)
			c.send(websocket.OpBinary, big)
			if ev := c.next(); ev.Kind != websocket.EventMessage || !bytes.Equal(ev.Payload, big) {
				t.Fatalf("300 KB echo: %v %d bytes", ev.Kind, len(ev.Payload))
			}
			if n := app.Stats().WebSockets; n != 1 {
				t.Errorf("Stats().WebSockets %d", n)
			}
			c.send(websocket.OpClose, websocket.ClosePayload(nil, 1000, ""))
			if ev := c.next(); ev.Kind != websocket.EventClose || ev.Code != 1000 {
				t.Fatalf("want close 1000, got %v %d", ev.Kind, ev.Code)
			}
			for !c.ended && !c.reset {
				c.readFrame()
			}
			if !c.ended {
				t.Fatal("the stream was reset, not ended")
			}
			waitFor(t, 5*time.Second, "OnClose", func() bool { return len(rec.closed()) == i+1 })
			if got := rec.closed()[i]; got != 1000 {
				t.Fatalf("OnClose %d", got)
			}
			waitFor(t, 5*time.Second, "no WebSocket left", func() bool { return app.Stats().WebSockets == 0 })

			// A 2xx would tell the client its tunnel is open (RFC 8441
			// section 5): the GET route that is not a WebSocket answers 405.
			o := dialH2WS(t, tc.addr, tc.useTLS, "/other")
			if o.status != "405" {
				t.Fatalf("/other: %q", o.status)
			}
			for !o.ended && !o.reset {
				o.readFrame()
			}
			if !o.ended || strings.Contains(string(o.pend), "not a websocket") {
				t.Fatalf("/other: %q", o.pend)
			}
		})
	}
}

// Over HTTP/2 the read queue's cap holds the stream's window: while the
// callbacks are blocked, the server credits back only what its frame
// reader took (the queue's messages), not what the peer keeps sending.
func TestWebSocketHTTP2ReadBackpressure(t *testing.T) {
	release := make(chan struct{})
	var got atomic.Int64
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			<-release
			got.Add(1)
		},
		Config: gwist.WSConfig{MaxReadQueue: 4},
	}))
	c := dialH2WS(t, startApp(t, app), false, "/ws")
	if c.status != "200" {
		t.Fatalf(":status %q", c.status)
	}
	const n, size = 90, 10 << 10 // 900 KB: within the server's 1 MiB stream window, past the half at which it credits
	msg := bytes.Repeat([]byte("q"), size)
	for range n {
		c.send(websocket.OpBinary, msg)
	}
	// Count the stream's WINDOW_UPDATEs for a while.
	credited := 0
	_ = c.conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			break
		}
		if wu, ok := f.(*xh2.WindowUpdateFrame); ok && wu.StreamID == 1 {
			credited += int(wu.Increment)
		}
	}
	// The queue's 4 messages, the one OnMessage holds, and the reader's
	// current one: about 6 messages, far from 90.
	if credited > 8*(size+14) {
		t.Fatalf("%d bytes credited while the callbacks were blocked", credited)
	}
	close(release)
	waitFor(t, 5*time.Second, "every message delivered", func() bool { return got.Load() == n })
}
