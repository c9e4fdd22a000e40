// Package wstest is a WebSocket client for tests: the opening handshake
// over any net.Conn (plaintext or TLS), masked frames written with the
// websocket package's writer and the server's frames read with its Reader.
// It checks Sec-WebSocket-Accept and fails the test on I/O errors.
package wstest

import (
	"bufio"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gwist/gwist/websocket"
)

// Mask is the masking key of every frame a Client sends.
var Mask = [4]byte{0x12, 0x34, 0x56, 0x78}

// Client is one WebSocket connection's client side.
type Client struct {
	T    testing.TB
	Conn net.Conn
	// BR reads Conn (it may hold bytes that followed the handshake).
	BR *bufio.Reader
	// Resp is the handshake's response (nil for New).
	Resp *http.Response
	// Reader parses the server's frames; replace it to read with
	// permessage-deflate (websocket.Config.Deflate).
	Reader *websocket.Reader
	buf    []byte // input not yet fed
}

// New is a Client on a connection whose handshake is already done.
func New(t testing.TB, conn net.Conn, br *bufio.Reader) *Client {
	return &Client{T: t, Conn: conn, BR: br,
		Reader: websocket.NewReader(websocket.Config{Client: true, MaxMessage: 64 << 20, MaxFrame: 64 << 20})}
}

// Key returns a fresh Sec-WebSocket-Key.
func Key() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// Handshake sends the opening handshake for path with extra header lines
// ("Name: value") and reads the response head; on a 101 it checks
// Sec-WebSocket-Accept.
func Handshake(t testing.TB, conn net.Conn, host, path string, extra ...string) (*Client, *http.Response) {
	t.Helper()
	key := Key()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n"
	for _, h := range extra {
		req += h + "\r\n"
	}
	req += "\r\n"
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatalf("handshake write: %v", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("handshake response: %v", err)
	}
	c := New(t, conn, br)
	c.Resp = resp
	if resp.StatusCode == 101 {
		if got, want := resp.Header.Get("Sec-WebSocket-Accept"), websocket.AcceptKey(key); got != want {
			t.Fatalf("Sec-WebSocket-Accept %q, want %q", got, want)
		}
	}
	return c, resp
}

// Dial opens a WebSocket to addr+path and fails the test unless the server
// answers 101. The connection is closed when the test ends.
func Dial(t testing.TB, addr, path string, extra ...string) *Client {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return upgraded(t, conn, addr, path, extra...)
}

// DialTLS is Dial over TLS.
func DialTLS(t testing.TB, addr, path string, cfg *tls.Config) *Client {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return upgraded(t, conn, addr, path)
}

func upgraded(t testing.TB, conn net.Conn, addr, path string, extra ...string) *Client {
	t.Helper()
	t.Cleanup(func() { conn.Close() })
	c, resp := Handshake(t, conn, addr, path, extra...)
	if resp.StatusCode != 101 {
		t.Fatalf("handshake: status %d, want 101", resp.StatusCode)
	}
	return c
}

// SendFrame writes one masked frame.
func (c *Client) SendFrame(op websocket.Opcode, fin bool, payload []byte) {
	c.T.Helper()
	c.SendRaw(websocket.AppendMaskedFrame(nil, op, fin, payload, Mask))
}

// SendRaw writes bytes as they are.
func (c *Client) SendRaw(b []byte) {
	c.T.Helper()
	if _, err := c.Conn.Write(b); err != nil {
		c.T.Fatalf("write: %v", err)
	}
}

// Next reads the next event from the server (within 10 s).
func (c *Client) Next() (websocket.Event, error) {
	_ = c.Conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if ev, ok := c.Reader.Next(); ok {
			return ev, nil
		}
		if err := c.Reader.Err(); err != nil {
			return websocket.Event{}, err
		}
		if len(c.buf) > 0 {
			n := c.Reader.Feed(c.buf)
			c.buf = c.buf[n:]
			if n > 0 {
				continue
			}
			if ev, ok := c.Reader.Next(); ok {
				return ev, nil
			}
		}
		var tmp [32 << 10]byte
		n, err := c.BR.Read(tmp[:])
		if n > 0 {
			c.buf = append(c.buf, tmp[:n]...)
			continue
		}
		if err != nil {
			return websocket.Event{}, err
		}
	}
}

// ExpectMessage reads the next event and checks it is the message want.
func (c *Client) ExpectMessage(op websocket.Opcode, want string) {
	c.T.Helper()
	ev, err := c.Next()
	if err != nil {
		c.T.Fatalf("reading a message: %v", err)
	}
	if ev.Kind != websocket.EventMessage || ev.Opcode != op || string(ev.Payload) != want {
		c.T.Fatalf("got %v %v %q, want message %v %q", ev.Kind, ev.Opcode, trunc(ev.Payload), op, trunc([]byte(want)))
	}
}

// ExpectClose reads until the server's close frame (skipping pings and
// pongs) and checks its code, then checks that the server closes the
// connection.
func (c *Client) ExpectClose(code websocket.CloseCode) {
	c.T.Helper()
	for {
		ev, err := c.Next()
		if err != nil {
			c.T.Fatalf("waiting for close %d: %v", code, err)
		}
		if ev.Kind == websocket.EventPing || ev.Kind == websocket.EventPong {
			continue
		}
		if ev.Kind != websocket.EventClose {
			c.T.Fatalf("got %v before the close frame", ev.Kind)
		}
		if ev.Code != code {
			c.T.Fatalf("close code %d (%q), want %d", ev.Code, ev.Reason, code)
		}
		break
	}
	c.ExpectEOF()
}

// ExpectEOF checks that the server closes the connection (within 5 s).
func (c *Client) ExpectEOF() {
	c.T.Helper()
	_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.Copy(io.Discard, c.BR)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.T.Fatal("the server did not close the connection")
	}
}

func trunc(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
