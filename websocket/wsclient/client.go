// Package wsclient is a WebSocket client (RFC 6455, with permessage-deflate,
// RFC 7692) over a net.Conn: Dial, ReadMessage, WriteMessage, Close. It is
// meant for tests of WebSocket endpoints and for service-to-service use.
//
// It lives apart from package websocket, which is sans-I/O (no socket, no
// goroutine, no timer: the engine and the fuzzers rely on that), and is
// built only from that package's public pieces: its Reader parses the
// server's frames (client role), AppendMaskedFrame and Deflater write the
// client's, AcceptKey and ParseDeflateResponse check the handshake.
//
// A Conn starts no goroutine. One goroutine at a time may read
// (ReadMessage, which also answers pings); any goroutine may write
// (WriteMessage, WriteText, Ping) and Close.
package wsclient

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gwist/gwist/websocket"
)

// Options configure Dial; the zero value (or nil) dials with none of them.
type Options struct {
	// Header holds extra request header fields: Origin, Authorization,
	// Cookie. The handshake's own fields are set by Dial.
	Header http.Header
	// Subprotocols are offered in order (Sec-WebSocket-Protocol); the
	// server's choice is Conn.Subprotocol.
	Subprotocols []string
	// Compression, when set, offers permessage-deflate: the server may
	// accept it (Conn.Compressed). ServerNoContextTakeover and
	// ClientNoContextTakeover are offered as such; Level is the client's
	// compression level; ClientMaxWindowBits is not offered (the client
	// compresses with a 32 KiB window).
	Compression *websocket.DeflateConfig
	// TLSConfig is used for wss:// (and https://) URLs; nil means the
	// defaults, with ServerName from the URL.
	TLSConfig *tls.Config
	// NetDial dials the TCP connection (default: a net.Dialer).
	NetDial func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxMessage caps a received message (default 4 MiB); a larger one
	// closes the connection with 1009.
	MaxMessage int64
	// CloseTimeout bounds Close's wait for the server's close frame
	// (default 5 s).
	CloseTimeout time.Duration
}

// HandshakeError is Dial's error when the server answered the opening
// handshake with something other than a valid 101; Response is that
// answer (its body unread, and closed).
type HandshakeError struct {
	Response *http.Response
	Reason   string
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("wsclient: handshake refused: %s (status %d)", e.Reason, e.Response.StatusCode)
}

// Conn is the client side of one WebSocket connection.
type Conn struct {
	conn         net.Conn
	br           *bufio.Reader
	subprotocol  string
	deflater     *websocket.Deflater // nil without permessage-deflate
	closeTimeout time.Duration

	readMu sync.Mutex // one reader at a time
	r      *websocket.Reader
	in     []byte // read and not yet fed to r
	tmp    []byte

	writeMu   sync.Mutex
	out       []byte
	closeSent bool // under writeMu

	peerClosed chan struct{} // closed when the server's close frame arrived
	closeOnce  sync.Once
}

// Dial opens a WebSocket to rawURL (ws://, wss://, or http:// and https://
// for the same), within ctx: the TCP (and TLS) connection and the opening
// handshake. It returns the server's 101 response too. A server that does
// not answer 101, or answers with a wrong Sec-WebSocket-Accept, a
// subprotocol or an extension that was not offered, fails with a
// *HandshakeError.
func Dial(ctx context.Context, rawURL string, opts *Options) (*Conn, *http.Response, error) {
	if opts == nil {
		opts = &Options{}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, fmt.Errorf("wsclient: %w", err)
	}
	secure := false
	switch u.Scheme {
	case "ws", "http":
	case "wss", "https":
		secure = true
	default:
		return nil, nil, fmt.Errorf("wsclient: URL scheme %q is not ws, wss, http or https", u.Scheme)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), map[bool]string{false: "80", true: "443"}[secure])
	}
	dial := opts.NetDial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	conn, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	if secure {
		cfg := opts.TLSConfig.Clone()
		if cfg == nil {
			cfg = &tls.Config{}
		}
		if cfg.ServerName == "" {
			cfg.ServerName = u.Hostname()
		}
		cfg.NextProtos = []string{"http/1.1"} // the handshake is HTTP/1.1
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, nil, err
		}
		conn = tc
	}
	c, resp, err := handshake(ctx, conn, u, opts)
	if err != nil {
		conn.Close()
		return nil, resp, err
	}
	return c, resp, nil
}

// handshake sends the opening handshake on conn and checks the answer.
func handshake(ctx context.Context, conn net.Conn, u *url.URL, opts *Options) (*Conn, *http.Response, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	key := base64.StdEncoding.EncodeToString(raw[:])
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Scheme: "http", Host: u.Host, Path: u.Path,
		RawPath: u.RawPath, RawQuery: u.RawQuery}, Host: u.Host, Header: http.Header{}, Proto: "HTTP/1.1",
		ProtoMajor: 1, ProtoMinor: 1}
	for k, vs := range opts.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", key)
	req.Header.Set("Sec-WebSocket-Version", "13")
	if len(opts.Subprotocols) > 0 {
		req.Header.Set("Sec-WebSocket-Protocol", strings.Join(opts.Subprotocols, ", "))
	}
	if dc := opts.Compression; dc != nil {
		offer := websocket.ExtensionName
		if dc.ServerNoContextTakeover {
			offer += "; server_no_context_takeover"
		}
		if dc.ClientNoContextTakeover {
			offer += "; client_no_context_takeover"
		}
		req.Header.Set("Sec-WebSocket-Extensions", offer)
	}
	if err := req.Write(conn); err != nil {
		return nil, nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return nil, nil, err
	}
	refuse := func(why string) (*Conn, *http.Response, error) {
		resp.Body.Close()
		return nil, resp, &HandshakeError{Response: resp, Reason: why}
	}
	switch {
	case resp.StatusCode != http.StatusSwitchingProtocols:
		return refuse("not 101 Switching Protocols")
	case !strings.EqualFold(resp.Header.Get("Upgrade"), "websocket") || !hasToken(resp.Header.Values("Connection"), "upgrade"):
		return refuse("no Upgrade: websocket and Connection: Upgrade")
	case resp.Header.Get("Sec-WebSocket-Accept") != websocket.AcceptKey(key):
		return refuse("wrong Sec-WebSocket-Accept")
	}
	c := &Conn{conn: conn, br: br, peerClosed: make(chan struct{}), closeTimeout: opts.CloseTimeout, tmp: make([]byte, 32<<10)}
	if c.closeTimeout <= 0 {
		c.closeTimeout = 5 * time.Second
	}
	if sp := resp.Header.Get("Sec-WebSocket-Protocol"); sp != "" {
		if !contains(opts.Subprotocols, sp) {
			return refuse("subprotocol " + sp + " was not offered")
		}
		c.subprotocol = sp
	}
	var params *websocket.DeflateParams
	if ext := resp.Header.Values("Sec-WebSocket-Extensions"); len(ext) > 0 {
		p, ok := websocket.ParseDeflateResponse(strings.Join(ext, ", "))
		if !ok || opts.Compression == nil {
			return refuse("extensions not offered: " + strings.Join(ext, ", "))
		}
		p.Level = opts.Compression.Level
		params = &p
		c.deflater = websocket.NewDeflater(p, true)
	}
	c.r = websocket.NewReader(websocket.Config{Client: true, MaxMessage: opts.MaxMessage, MaxFrame: opts.MaxMessage, Deflate: params})
	_ = conn.SetDeadline(time.Time{})
	return c, resp, nil
}

func hasToken(values []string, token string) bool {
	for _, t := range websocket.HeaderTokens(values...) {
		if strings.EqualFold(t, token) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Subprotocol is the subprotocol the server selected ("" for none).
func (c *Conn) Subprotocol() string { return c.subprotocol }

// Compressed reports whether permessage-deflate was negotiated.
func (c *Conn) Compressed() bool { return c.deflater != nil }

// NetConn is the underlying connection (for deadlines and addresses).
func (c *Conn) NetConn() net.Conn { return c.conn }

// ReadMessage returns the next data message: websocket.OpText (valid
// UTF-8) or websocket.OpBinary, and its payload (the caller's). Pings are
// answered and pongs skipped on the way. When the server closes, it
// answers the close frame and returns a *websocket.CloseError with the
// server's code and reason; a protocol violation by the server is sent
// the close frame it calls for and returned as a *websocket.CloseError
// too. Other errors are the connection's (net.Conn deadlines apply).
func (c *Conn) ReadMessage() (websocket.Opcode, []byte, error) {
	c.readMu.Lock()
	defer c.readMu.Unlock()
	for {
		ev, err := c.next()
		if err != nil {
			return 0, nil, err
		}
		switch ev.Kind {
		case websocket.EventMessage:
			return ev.Opcode, append([]byte(nil), ev.Payload...), nil
		case websocket.EventPing:
			if err := c.writeFrame(websocket.OpPong, ev.Payload); err != nil && !errors.Is(err, errClosing) {
				return 0, nil, err
			}
		case websocket.EventClose:
			return 0, nil, c.onPeerClose(ev.Code, ev.Reason)
		}
	}
}

// onPeerClose answers the server's close frame (unless Close sent one)
// and closes the connection, or lets Close do it.
func (c *Conn) onPeerClose(code websocket.CloseCode, reason string) error {
	c.closeOnce.Do(func() { close(c.peerClosed) })
	c.writeMu.Lock()
	sent := c.closeSent
	if !sent {
		echo := code
		if echo == websocket.CloseNoStatus {
			echo = 0
		}
		c.sendClose(echo, "")
	}
	c.writeMu.Unlock()
	if !sent {
		_ = c.conn.Close()
	}
	return &websocket.CloseError{Code: code, Reason: reason}
}

// next reads until the frame reader has an event.
func (c *Conn) next() (websocket.Event, error) {
	for {
		if ev, ok := c.r.Next(); ok {
			return ev, nil
		}
		if e := c.r.Err(); e != nil {
			c.writeMu.Lock()
			if !c.closeSent {
				c.sendClose(e.Code, e.Reason)
			}
			c.writeMu.Unlock()
			_ = c.conn.Close()
			return websocket.Event{}, e
		}
		if len(c.in) > 0 {
			n := c.r.Feed(c.in)
			c.in = c.in[n:]
			if n > 0 {
				continue
			}
			if ev, ok := c.r.Next(); ok {
				return ev, nil
			}
			if c.r.Err() != nil {
				continue
			}
		}
		n, err := c.br.Read(c.tmp)
		if n > 0 {
			c.in = append(c.in, c.tmp[:n]...)
			continue
		}
		if err != nil {
			return websocket.Event{}, err
		}
	}
}

// errClosing: a write after Close (or the server's close frame).
var errClosing = errors.New("wsclient: the connection is closing")

// WriteMessage sends one message, websocket.OpText (data must be valid
// UTF-8) or websocket.OpBinary, compressed when permessage-deflate was
// negotiated. It fails once the close handshake began.
func (c *Conn) WriteMessage(op websocket.Opcode, data []byte) error {
	if op != websocket.OpText && op != websocket.OpBinary {
		return errors.New("wsclient: WriteMessage takes OpText or OpBinary")
	}
	return c.writeFrame(op, data)
}

// WriteText sends s as a text message.
func (c *Conn) WriteText(s string) error { return c.WriteMessage(websocket.OpText, []byte(s)) }

// Ping sends a ping with data (at most 125 bytes); ReadMessage skips the
// pong.
func (c *Conn) Ping(data []byte) error {
	if len(data) > websocket.MaxControlPayload {
		return errors.New("wsclient: a ping carries at most 125 bytes")
	}
	return c.writeFrame(websocket.OpPing, data)
}

// writeFrame masks and writes one frame.
func (c *Conn) writeFrame(op websocket.Opcode, data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.closeSent {
		return errClosing
	}
	mask := newMask()
	if c.deflater != nil && !op.IsControl() {
		c.out = c.deflater.AppendMaskedMessage(c.out[:0], op, data, mask)
	} else {
		c.out = websocket.AppendMaskedFrame(c.out[:0], op, true, data, mask)
	}
	_, err := c.conn.Write(c.out)
	return err
}

// sendClose writes a close frame (code 0: an empty one). Called with
// writeMu held.
func (c *Conn) sendClose(code websocket.CloseCode, reason string) {
	c.closeSent = true
	var payload []byte
	if code != 0 {
		payload = websocket.ClosePayload(nil, code, reason)
	}
	_, _ = c.conn.Write(websocket.AppendMaskedFrame(c.out[:0], websocket.OpClose, true, payload, newMask()))
}

func newMask() (m [4]byte) {
	_, _ = rand.Read(m[:])
	return m
}

// Close runs the close handshake: it sends a close frame with code and
// reason (websocket.CloseNormal, say), waits up to Options.CloseTimeout
// for the server's (reading and dropping messages meanwhile, unless
// another goroutine is in ReadMessage, which then returns the server's
// close), then closes the connection. Closing twice does nothing more.
func (c *Conn) Close(code websocket.CloseCode, reason string) error {
	if !websocket.ValidCloseCode(code) {
		return errors.New("wsclient: invalid close code")
	}
	c.writeMu.Lock()
	already := c.closeSent
	if !already {
		c.sendClose(code, reason)
	}
	c.writeMu.Unlock()
	if already {
		return nil
	}
	if c.readMu.TryLock() {
		_ = c.conn.SetReadDeadline(time.Now().Add(c.closeTimeout))
		for {
			ev, err := c.next()
			if err != nil || ev.Kind == websocket.EventClose {
				break
			}
		}
		c.closeOnce.Do(func() { close(c.peerClosed) })
		c.readMu.Unlock()
	} else {
		t := time.NewTimer(c.closeTimeout)
		select {
		case <-c.peerClosed:
		case <-t.C:
		}
		t.Stop()
	}
	return c.conn.Close()
}
