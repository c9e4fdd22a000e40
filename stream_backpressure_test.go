package gwist_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

const (
	bpCap   = 64 << 10 // WithMaxStreamQueued in these tests
	bpChunk = 16 << 10 // one handler Write
)

// patterned fills p with the bytes of a stream at offset off.
func patterned(p []byte, off int64) {
	for i := range p {
		p[i] = byte((off + int64(i)) % 251)
	}
}

// bigStreamApp serves /big?n=N: N patterned bytes, Content-Length set,
// written bpChunk at a time. written counts what the handler's Writes
// accepted; errs receives the handler's Write error, if any.
func bigStreamApp(t *testing.T, written *atomic.Int64, errs chan error, opts ...gwist.Option) *gwist.App {
	app := gwist.New(append([]gwist.Option{gwist.WithMaxStreamQueued(bpCap), gwist.WithLogger(discardLogger())}, opts...)...)
	app.GET("/big", func(c *gwist.Ctx) error {
		n, _ := strconv.ParseInt(c.Query("n"), 10, 64)
		c.SetHeader("Content-Length", strconv.FormatInt(n, 10))
		buf := make([]byte, bpChunk)
		for off := int64(0); off < n; {
			p := buf[:min(int64(len(buf)), n-off)]
			patterned(p, off)
			if _, err := c.Write(p); err != nil {
				if errors.Is(err, gwist.ErrClientGone) {
					select { // the loop cancels on close, soon after the write failed
					case <-c.Context().Done():
					case <-time.After(5 * time.Second):
					}
					if c.Context().Err() == nil {
						err = errors.New("client gone but the context is live")
					}
				}
				errs <- err
				return err
			}
			off += int64(len(p))
			written.Store(off)
		}
		return nil
	})
	return app
}

// dialSmall connects with a small receive buffer, so that the kernel's
// buffers hold little of a stream the client does not read.
func dialSmall(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).SetReadBuffer(16 << 10)
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawConn{t: t, c: c, br: bufio.NewReaderSize(c, 4096)}
}

// A client that does not read makes the handler's Write block once
// MaxStreamQueued is queued: the server holds at most the cap plus one
// Write, the handler stops (far from done), and it goes on to the end,
// every byte intact, as soon as the client reads.
func TestStreamBackpressureBoundsQueue(t *testing.T) {
	const total = 64 << 20
	var written atomic.Int64
	errs := make(chan error, 1)
	app := bigStreamApp(t, &written, errs)
	r := dialSmall(t, startApp(t, app))
	r.send("GET /big?n=" + strconv.Itoa(total) + " HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(r.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	peak := func() int64 { return app.Stats().Backpressure.PeakStreamQueued }
	waitFor(t, 10*time.Second, "the stream's queue to reach the cap", func() bool { return peak() >= bpCap })
	stalled := written.Load()
	if stalled >= total {
		t.Fatalf("the handler wrote all %d bytes while the client read nothing: no backpressure", stalled)
	}
	if p := peak(); p > bpCap+bpChunk+512 {
		t.Fatalf("server queued %d bytes for one stream, cap %d + one write %d", p, bpCap, bpChunk)
	}
	buf := make([]byte, 64<<10)
	want := make([]byte, len(buf))
	var got int64
	for {
		n, err := resp.Body.Read(buf)
		patterned(want[:n], got)
		if string(buf[:n]) != string(want[:n]) {
			t.Fatalf("corrupt body at offset %d", got)
		}
		got += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", got, err)
		}
	}
	if got != total || written.Load() != total {
		t.Fatalf("read %d, handler wrote %d, want %d", got, written.Load(), total)
	}
	if p := peak(); p > bpCap+bpChunk+512 {
		t.Fatalf("server queued %d bytes for one stream, cap %d + one write %d", p, bpCap, bpChunk)
	}
	t.Logf("handler stalled at %d of %d bytes (kernel buffers); peak queued %d", stalled, total, peak())
}

// A client that leaves while the handler is blocked on a full queue makes
// that Write return ErrClientGone at once and cancels the context (the
// handler checks it before reporting).
func TestStreamBlockedWriteClientGone(t *testing.T) {
	var written atomic.Int64
	errs := make(chan error, 1)
	app := bigStreamApp(t, &written, errs)
	r := dialSmall(t, startApp(t, app))
	r.send("GET /big?n=" + strconv.Itoa(1<<30) + " HTTP/1.1\r\nHost: x\r\n\r\n")
	if _, err := http.ReadResponse(r.br, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the handler to block", func() bool {
		return app.Stats().Backpressure.PeakStreamQueued >= bpCap
	})
	start := time.Now()
	r.c.Close()
	select {
	case err := <-errs:
		if !errors.Is(err, gwist.ErrClientGone) {
			t.Fatalf("Write: %v, want ErrClientGone", err)
		}
		t.Logf("blocked Write returned %v after the close", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("the blocked Write did not return after the client left")
	}
}

// A client that stops reading for WriteTimeout: the blocked Write fails
// with ErrStreamWriteTimeout and the connection is closed.
func TestStreamWriteTimeout(t *testing.T) {
	var written atomic.Int64
	errs := make(chan error, 1)
	app := bigStreamApp(t, &written, errs, gwist.WithWriteTimeout(300*time.Millisecond))
	r := dialSmall(t, startApp(t, app))
	r.send("GET /big?n=" + strconv.Itoa(1<<30) + " HTTP/1.1\r\nHost: x\r\n\r\n")
	if _, err := http.ReadResponse(r.br, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		if !errors.Is(err, gwist.ErrStreamWriteTimeout) {
			t.Fatalf("Write: %v, want ErrStreamWriteTimeout", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the Write stayed blocked past the write timeout")
	}
	_ = r.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, r.br); err != nil && !isReset(err) {
		t.Fatalf("connection not closed after the timeout: %v", err)
	}
	if n := app.Stats().Backpressure.WriteTimeouts; n != 1 {
		t.Fatalf("WriteTimeouts = %d", n)
	}
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

// Inline handlers never stream: Flush returns ErrInlineStreaming and what
// they write is sent whole, with a Content-Length, when they return.
func TestStreamInlineBuffers(t *testing.T) {
	flushErr := make(chan error, 1)
	app := gwist.New(gwist.WithInline(true))
	app.GET("/s", func(c *gwist.Ctx) error {
		if _, err := c.Write(make([]byte, 100<<10)); err != nil {
			return err
		}
		flushErr <- c.Flush()
		_, err := c.Write([]byte("end"))
		return err
	})
	resp, b := get(t, newClient(t), "http://"+startApp(t, app)+"/s")
	if err := <-flushErr; !errors.Is(err, gwist.ErrInlineStreaming) {
		t.Fatalf("Flush: %v", err)
	}
	if resp.ContentLength != 100<<10+3 || len(b) != 100<<10+3 || resp.TransferEncoding != nil {
		t.Fatalf("length %d, %d bytes, TE %v", resp.ContentLength, len(b), resp.TransferEncoding)
	}
}
