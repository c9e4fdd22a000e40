//go:build unix

package engine

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// A file shorter than SendFile was told, over HTTP/2, with no
// Content-Length that would cut the stream by itself: the stream still
// ends with RST_STREAM, never with END_STREAM, so the short body never
// looks complete; the handler gets io.ErrUnexpectedEOF.
func TestHTTP2SendFileShortCuts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "short.bin")
	if err := os.WriteFile(path, make([]byte, 100_000), 0o644); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	h := newHarness(t, Config{H2C: true}, func(ex *Exchange) {
		f, err := os.Open(path)
		if err != nil {
			errc <- err
			return
		}
		defer f.Close()
		errc <- ex.SendFile(f, 0, 200_000)
	})
	p := h.dialH2(true)
	p.encBuf.Reset()
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "x"}} {
		_ = p.enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	_ = p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: p.encBuf.Bytes(), EndHeaders: true, EndStream: true})
	_ = p.fr.WriteWindowUpdate(0, 1<<20) // room for the whole body, so that only the cut can stop it
	_ = p.fr.WriteWindowUpdate(1, 1<<20)
	p.flush()
	var data int
	var rst *xh2.RSTStreamFrame
	h.runUntil("the stream's end", func() bool {
		for _, f := range p.frames() {
			switch f := f.(type) {
			case *xh2.DataFrame:
				data += int(f.Length) // (the payload itself is gone: frames reads on)
				if f.StreamEnded() {
					t.Fatalf("END_STREAM after %d bytes of a file that came up short", data)
				}
			case *xh2.MetaHeadersFrame:
				if f.StreamEnded() {
					t.Fatal("END_STREAM on the response's HEADERS")
				}
			case *xh2.RSTStreamFrame:
				rst = f
			}
		}
		return rst != nil
	})
	if rst.ErrCode != xh2.ErrCodeInternal || data > 100_000 {
		t.Fatalf("RST_STREAM %v after %d bytes", rst.ErrCode, data)
	}
	if err := <-errc; !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("SendFile: %v", err)
	}
}
