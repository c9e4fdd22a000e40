package gwist_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// HTTP/2 frames a response body straight from the stream's buffer
// (http2.Conn.LendData). A stream whose last bytes wait for the client's
// window is freed once its handler returned and everything was handed
// over; its buffer must not go back to the pools, where the next
// response would fill it, before those bytes are framed. Here the first
// response's last 4 KiB wait while 16 other responses of the same size
// take buffers; then they arrive as the file's own. Three rounds: which
// pooled buffer a response gets depends on the P it runs on, and one
// round alone missed a buffer handed back too early once in three.
func TestHTTP2LentBufferOutlivesItsStream(t *testing.T) {
	root := t.TempDir()
	const size = 200 << 10
	want := bigFile(t, root, "a.bin", size)
	if err := os.WriteFile(filepath.Join(root, "b.bin"), bytes.Repeat([]byte{0xEE}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, _ := staticBoth(t, root)
	for range 3 {
		lentRound(t, plain, want)
	}
}

// lentRound fetches a.bin (want) with its last 4 KiB held back by the
// window while 16 b.bin go through, then lets them come.
func lentRound(t *testing.T, plain string, want []byte) {
	size, held := len(want), 4<<10
	conn, err := net.Dial("tcp", plain)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fr := xh2.NewFramer(conn, conn)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":path", "/static/a.bin"}, {":authority", "localhost"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	_, _ = io.WriteString(conn, xh2.ClientPreface)
	_ = fr.WriteSettings(xh2.Setting{ID: xh2.SettingInitialWindowSize, Val: uint32(size - held)})
	_ = fr.WriteWindowUpdate(0, 4<<20)
	_ = fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndHeaders: true, EndStream: true})

	var got []byte
	ended := false
	readUntil := func(n int) {
		t.Helper()
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		for len(got) < n && !ended {
			f, err := fr.ReadFrame()
			if err != nil {
				t.Fatalf("after %d bytes: %v", len(got), err)
			}
			switch f := f.(type) {
			case *xh2.SettingsFrame:
				if !f.IsAck() {
					_ = fr.WriteSettingsAck()
				}
			case *xh2.DataFrame:
				if f.StreamID == 1 {
					got = append(got, f.Data()...)
					ended = f.StreamEnded()
				}
			case *xh2.RSTStreamFrame, *xh2.GoAwayFrame:
				t.Fatalf("after %d bytes: %v", len(got), f)
			}
		}
	}
	readUntil(size - held)
	if len(got) != size-held {
		t.Fatalf("got %d bytes before the window shut, want %d", len(got), size-held)
	}
	time.Sleep(100 * time.Millisecond) // the handler returns, the stream is freed

	c := h2cClient(t)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get("http://" + plain + "/static/b.bin")
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if b, err := io.ReadAll(resp.Body); err != nil || len(b) != size || resp.StatusCode != http.StatusOK {
				t.Errorf("b.bin: %d, %d bytes, %v", resp.StatusCode, len(b), err)
			}
		}()
	}
	wg.Wait()

	_ = fr.WriteWindowUpdate(1, uint32(held))
	readUntil(size)
	if !ended || !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("a.bin: %d bytes (ended %v), want %d; first difference at byte %d", len(got), ended, size, i)
	}
}
