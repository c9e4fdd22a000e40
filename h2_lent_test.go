package gwist_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// HTTP/2 frames a response body straight from the stream's buffer
// (http2.Conn.LendData). A stream whose last bytes wait for the client's
// window is freed once its handler returned and everything was handed
// over; its buffer goes back to the pools, where the next response fills
// it, only once http2.Conn holds a copy of those bytes (Unlend). Here the first
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
		lentRound(t, plain, "/static/a.bin", want, size-4<<10, func() {
			time.Sleep(100 * time.Millisecond) // the handler returns, the stream is freed
			fetchConcurrently(t, "http://"+plain+"/static/b.bin", size)
		})
	}
}

// While its first bytes wait for the window, a large file's handler goes
// on reading it into the stream's buffers: none of them may be one the
// waiting bytes are still framed from (the buffer the loop has taken all
// of stays out of the round while its bytes are lent). Where the window
// shuts against the buffers' ends depends on timing: twelve places.
func TestHTTP2LentBufferNotRefilledWhileFramed(t *testing.T) {
	root := t.TempDir()
	const size = 2 << 20
	want := bigFile(t, root, "a.bin", size)
	plain, _ := staticBoth(t, root)
	for k := range 12 {
		window := k*48<<10 + 20000
		lentRound(t, plain, "/static/a.bin", want, window, func() {
			time.Sleep(30 * time.Millisecond) // the handler fills the queue
		})
	}
}

// dialWindow opens a raw h2c connection (x/net's Framer) whose streams
// start with a window of window bytes (the connection's is large), and
// returns it with a function that GETs a path on a new stream.
func dialWindow(t *testing.T, plain string, window int) (net.Conn, *xh2.Framer, func(id uint32, path string)) {
	t.Helper()
	conn, err := net.Dial("tcp", plain)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fr := xh2.NewFramer(conn, conn)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	_, _ = io.WriteString(conn, xh2.ClientPreface)
	_ = fr.WriteSettings(xh2.Setting{ID: xh2.SettingInitialWindowSize, Val: uint32(window)})
	_ = fr.WriteWindowUpdate(0, 1<<30)
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	get := func(id uint32, path string) {
		hb.Reset()
		for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":path", path}, {":authority", "localhost"}} {
			_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		_ = fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndHeaders: true, EndStream: true})
	}
	return conn, fr, get
}

// fetchConcurrently GETs url 16 times at once over h2c, each response
// size bytes.
func fetchConcurrently(t *testing.T, url string, size int) {
	c := h2cClient(t)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get(url)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if b, err := io.ReadAll(resp.Body); err != nil || len(b) != size || resp.StatusCode != http.StatusOK {
				t.Errorf("%s: %d, %d bytes, %v", url, resp.StatusCode, len(b), err)
			}
		}()
	}
	wg.Wait()
}

// lentRound GETs path (whose body is want) over a raw h2c connection whose
// stream window lets window bytes through, runs meanwhile, then opens the
// window and checks every byte.
func lentRound(t *testing.T, plain, path string, want []byte, window int, meanwhile func()) {
	size := len(want)
	conn, fr, get := dialWindow(t, plain, window)
	get(1, path)

	var got []byte
	ended := false
	readUntil := func(n int) {
		t.Helper()
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		for (len(got) < n || n == size) && !ended { // the whole body: until END_STREAM
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
	readUntil(window)
	if len(got) != window {
		t.Fatalf("got %d bytes before the window shut, want %d", len(got), window)
	}
	meanwhile()
	_ = fr.WriteWindowUpdate(1, uint32(size-window))
	readUntil(size)
	if !ended || !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s, window %d: %d bytes (ended %v), want %d; first difference at byte %d", path, window, len(got), ended, size, i)
	}
}

// A buffer whose last bytes wait for the window, lent whole, must not
// become the spare the handler's next write fills while a later piece
// waits behind them: here the handler writes 80 KiB of A, 10 KiB of B and
// 100 KiB of C (which would fill that buffer from its start) while the
// client's window stops the A at 70 KiB.
func TestHTTP2LentBufferNotReusedByNextWrite(t *testing.T) {
	pieces := []struct {
		b byte
		n int
	}{{'A', 80 << 10}, {'B', 10 << 10}, {'C', 100 << 10}}
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.GET("/pieces", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "application/octet-stream")
		for _, p := range pieces {
			if _, err := c.Write(bytes.Repeat([]byte{p.b}, p.n)); err != nil {
				return err
			}
			if err := c.Flush(); err != nil {
				return err
			}
			time.Sleep(50 * time.Millisecond) // the loop takes the piece
		}
		return nil
	})
	plain := startApp(t, app)
	var want []byte
	for _, p := range pieces {
		want = append(want, bytes.Repeat([]byte{p.b}, p.n)...)
	}
	for range 2 {
		lentRound(t, plain, "/pieces", want, 70<<10, func() {
			time.Sleep(200 * time.Millisecond) // every piece written
		})
	}
}

// Streams freed while their last bytes wait for the peer's window pin at
// most h2MaxParkedLent (2 MiB) of body buffers per connection; past it
// the connection keeps copies of those bytes: 64 streams of a 400 KiB
// file, each held 4 KiB short of its end, where pinning each stream's
// buffer (512 KiB) would pin 32 MiB until the windows open. Then 16 other
// responses take buffers, the windows open, and every stream ends with
// the file's own bytes (the copies and the parked buffers both hold).
func TestHTTP2FreedStreamsPinNoBuffers(t *testing.T) {
	root := t.TempDir()
	const size, held, streams = 400 << 10, 4 << 10, 64
	want := bigFile(t, root, "big.bin", size)
	if err := os.WriteFile(filepath.Join(root, "b.bin"), bytes.Repeat([]byte{0xEE}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, _ := staticBoth(t, root)
	heap := func() uint64 {
		runtime.GC()
		runtime.GC() // and the pools' victims
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()

	conn, fr, get := dialWindow(t, plain, size-held)
	for i := range streams {
		get(uint32(2*i+1), "/static/big.bin")
	}
	got := map[uint32]int{}
	tails := map[uint32][]byte{}
	full, ended := 0, 0
	readUntil := func(done func() bool) {
		t.Helper()
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		for !done() {
			f, err := fr.ReadFrame()
			if err != nil {
				t.Fatalf("%d streams at their window, %d ended: %v", full, ended, err)
			}
			switch f := f.(type) {
			case *xh2.SettingsFrame:
				if !f.IsAck() {
					_ = fr.WriteSettingsAck()
				}
			case *xh2.DataFrame:
				id := f.StreamID
				if got[id] >= size-held {
					tails[id] = append(tails[id], f.Data()...)
				}
				if got[id] += len(f.Data()); got[id] == size-held {
					full++
				}
				if f.StreamEnded() {
					ended++
				}
			case *xh2.RSTStreamFrame, *xh2.GoAwayFrame:
				t.Fatalf("%v", f)
			}
		}
	}
	readUntil(func() bool { return full == streams })
	time.Sleep(200 * time.Millisecond) // the last handlers return, their streams are freed
	if grew := int64(heap()) - int64(before); grew > 8<<20 {
		t.Errorf("the heap grew by %d KiB with %d freed streams waiting for their windows", grew>>10, streams)
	}

	fetchConcurrently(t, "http://"+plain+"/static/b.bin", size)
	for i := range streams {
		_ = fr.WriteWindowUpdate(uint32(2*i+1), held)
	}
	readUntil(func() bool { return ended == streams })
	for id, tail := range tails {
		if !bytes.Equal(tail, want[size-held:]) {
			t.Fatalf("stream %d: its last %d bytes are not the file's", id, held)
		}
	}
}
