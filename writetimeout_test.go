package gwist_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// echoApp answers POST /echo with the request body.
func echoApp(inline bool, opts ...gwist.Option) *gwist.App {
	base := []gwist.Option{gwist.WithInline(inline), gwist.WithLogger(discardLogger()),
		gwist.WithMaxBodyBytes(int64(echoSize))}
	app := gwist.New(append(base, opts...)...)
	app.POST("/echo", func(c *gwist.Ctx) error { return c.Bytes(200, "application/octet-stream", c.Body()) })
	return app
}

// echoSize is larger than what the kernel buffers on loopback (the
// server's send buffer grows to tcp_wmem's maximum, 4 MiB by default; the
// client's receive buffer is held at 64 KiB), so megabytes of the
// response wait in the server.
var echoSize = func() int {
	size := 7 << 20
	if b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_wmem"); err == nil {
		var lo, def, hi int
		if n, _ := fmt.Sscan(string(b), &lo, &def, &hi); n == 3 {
			size = max(size, hi+3<<20)
		}
	}
	return size
}()

func sendEcho(t *testing.T, c net.Conn) {
	t.Helper()
	head := fmt.Sprintf("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", echoSize)
	if _, err := c.Write(append([]byte(head), bytes.Repeat([]byte("e"), echoSize)...)); err != nil {
		t.Fatalf("sending the request: %v", err)
	}
}

// A client that never reads a 7 MB response is disconnected once its
// queued output has not moved for WriteTimeout, and the server's memory
// for it is freed (its connection count is back to 0). Worker mode
// writes the response directly from the worker (direct.go), whose unsent
// tail is queued on the loop: the timeout covers that path too.
func TestWriteTimeoutClosesNonReader(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		const writeTimeout = 300 * time.Millisecond
		app := echoApp(inline, gwist.WithWriteTimeout(writeTimeout))
		addr := startApp(t, app)
		c := dialSmallWindow(t, addr)
		sendEcho(t, c)
		// Closed at most WriteTimeout after the output stalls, plus the
		// 250 ms sweep that notices the stall and the one that finds it
		// expired; the rest of the bound is slack for a loaded machine.
		took := waitNoConns(t, app, writeTimeout+2*250*time.Millisecond+5*time.Second)
		t.Logf("closed %v after the request was sent; %+v", took, app.Stats().Backpressure)
		// The client sees the end: what the kernel had, then EOF or a reset.
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := io.Copy(io.Discard, c)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("connection still open for the client after %d bytes", n)
		}
		if n >= int64(echoSize) {
			t.Fatalf("got the whole response (%d bytes): nothing was held back", n)
		}
		if st := app.Stats().Backpressure; st.WriteTimeouts != 1 {
			t.Fatalf("want 1 write timeout, got %+v", st)
		}
	})
}

// A slow reader that takes 256 KiB every 100 ms, longer than the 300 ms
// WriteTimeout in all, is not cut: every read lets some output move.
func TestWriteTimeoutSparesSlowReader(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		app := echoApp(inline, gwist.WithWriteTimeout(300*time.Millisecond))
		addr := startApp(t, app)
		c := dialSmallWindow(t, addr)
		sendEcho(t, c)
		_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
		br := bufio.NewReaderSize(c, 4<<10)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got int64
		start := time.Now()
		for {
			n, err := io.CopyN(io.Discard, resp.Body, 256<<10)
			got += n
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("cut after %d of %d bytes (%v): %v", got, echoSize, time.Since(start), err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if resp.StatusCode != 200 || got != int64(echoSize) {
			t.Fatalf("got %d, %d of %d bytes", resp.StatusCode, got, echoSize)
		}
		if st := app.Stats().Backpressure; st.WriteTimeouts != 0 {
			t.Fatalf("slow reader timed out: %+v", st)
		}
		t.Logf("read %d bytes in %v", got, time.Since(start))
	})
}

// The same over TLS: the queued output is ciphertext.
func TestWriteTimeoutClosesNonReaderTLS(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		const writeTimeout = 300 * time.Millisecond
		app := echoApp(inline, gwist.WithWriteTimeout(writeTimeout))
		addr := startTLS(t, app, serverTLSConfig(t))
		c := tls.Client(dialSmallWindow(t, addr), &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test"})
		if err := c.Handshake(); err != nil {
			t.Fatal(err)
		}
		sendEcho(t, c)
		took := waitNoConns(t, app, writeTimeout+2*250*time.Millisecond+5*time.Second)
		t.Logf("closed %v after the request was sent; %+v", took, app.Stats().Backpressure)
		if st := app.Stats().Backpressure; st.WriteTimeouts != 1 {
			t.Fatalf("want 1 write timeout, got %+v", st)
		}
	})
}
