package hostile

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gwist/gwist/websocket"
)

// mask is the masking key of every frame the attacks send. A real client
// picks a fresh one per frame; the server's work is the same.
var mask = [4]byte{0x12, 0x34, 0x56, 0x78}

// handshakeTimeout bounds a dial plus the opening handshake.
const handshakeTimeout = 10 * time.Second

// defaultDialParallel is how many connections are being opened at once.
const defaultDialParallel = 64

// dialWS opens a TCP connection to addr and performs a WebSocket opening
// handshake for path (no extensions offered), checking for 101 and
// Sec-WebSocket-Accept. The returned reader holds any bytes that followed
// the response head.
func dialWS(ctx context.Context, addr, path string) (net.Conn, *bufio.Reader, error) {
	ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	var kb [16]byte
	_, _ = rand.Read(kb[:])
	key := base64.StdEncoding.EncodeToString(kb[:])
	req := "GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
	dl, _ := ctx.Deadline()
	_ = conn.SetDeadline(dl)
	if _, err := conn.Write([]byte(req)); err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("handshake write: %w", err)
	}
	br := bufio.NewReaderSize(conn, 4096)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("handshake response: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return nil, nil, fmt.Errorf("handshake: status %d", resp.StatusCode)
	}
	if got := resp.Header.Get("Sec-WebSocket-Accept"); got != websocket.AcceptKey(key) {
		conn.Close()
		return nil, nil, errors.New("handshake: wrong Sec-WebSocket-Accept")
	}
	_ = conn.SetDeadline(time.Time{})
	return conn, br, nil
}

// withDuration returns ctx limited to d (unlimited when d <= 0).
func withDuration(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// fanOut runs fn(i) for i in [0, n) on a goroutine each and waits for all.
// dial(i) runs first on the same goroutine, at most parallel at a time, so
// that thousands of connections are opened without a SYN storm.
func fanOut(n, parallel int, dial func(i int), fn func(i int)) {
	if parallel <= 0 {
		parallel = defaultDialParallel
	}
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			dial(i)
			<-sem
			fn(i)
		}()
	}
	wg.Wait()
}

// isTimeout reports whether err is a deadline that passed.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// closeCount sums up which connections the server closed, and when.
type closeCount struct {
	Closed                int
	FirstClose, LastClose time.Duration
}

func (c *closeCount) add(closed bool, at time.Duration) {
	if !closed {
		return
	}
	if c.Closed == 0 || at < c.FirstClose {
		c.FirstClose = at
	}
	if at > c.LastClose {
		c.LastClose = at
	}
	c.Closed++
}

// errorSummary keeps the first few distinct error strings and a count of all.
type errorSummary struct {
	Errors    []string `json:",omitempty"`
	ErrorsAll int      `json:",omitempty"`
}

const maxErrors = 8

func (e *errorSummary) add(err string) {
	if err == "" {
		return
	}
	e.ErrorsAll++
	for _, s := range e.Errors {
		if s == err {
			return
		}
	}
	if len(e.Errors) < maxErrors {
		e.Errors = append(e.Errors, err)
	}
}
