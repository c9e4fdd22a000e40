//go:build unix

package engine

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gwist/gwist/http1"
)

// upload answers with the streamed body's length and its last byte (on a
// worker), or with the error its Read returned.
func upload(ex *Exchange) {
	var buf [1 << 10]byte
	n, last := 0, byte(0)
	for {
		k, err := ex.ReadBody(buf[:])
		if k > 0 {
			n += k
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			ex.Status = 500
			ex.Body = append(ex.Body[:0], err.Error()...)
			return
		}
	}
	ex.Status = 200
	ex.Body = append(ex.Body, []byte{byte('0' + n%10), last}...)
}

// A streamed HTTP/1 body flows through the pipe in pieces of every size,
// in order, past the pipe's size (the loop waits for room and is told when
// the handler made some), and ends with io.EOF.
func TestStreamedBodyThroughThePipe(t *testing.T) {
	h := newHarness(t, Config{StreamBody: func(*http1.Request) (int64, bool) { return 0, true },
		MaxBodyBuffered: 4 << 10}, upload)
	p := h.dial()
	body := bytes.Repeat([]byte("0123456789"), 3000) // 30,000 bytes
	p.send("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 30000\r\n\r\n")
	r := rand.New(rand.NewPCG(1, 2))
	for off := 0; off < len(body); {
		n := min(len(body)-off, 1+r.IntN(3000))
		p.send(string(body[off : off+n]))
		off += n
	}
	var got string
	h.runUntil("the response", func() bool {
		got += p.read()
		return strings.HasSuffix(got, "09")
	})
	if !strings.HasPrefix(got, "HTTP/1.1 200 ") {
		t.Fatalf("response: %q", got)
	}
	if peak := h.srv.PipeStats().PeakBodyBuffered; peak > 4<<10 {
		t.Fatalf("the pipe held %d bytes, over its 4 KiB", peak)
	}
}
