package gwist_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// openFilesUnder counts this process's descriptors open on files under
// dir (the directory itself, held by Static's os.Root, excluded).
func openFilesUnder(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}

// Every answer closes the file it opened: full, 304, 412, 416, ranges,
// HEAD, 404s, a client that leaves in the middle of a large file, and the
// inline App's refusal.
func TestStaticClosesFiles(t *testing.T) {
	root := staticTree(t)
	bigFile(t, root, "big.bin", 4<<20)
	base := staticApp(t, root)
	inlineBase := staticApp(t, root, gwist.WithInline(true))
	c := newClient(t)
	// No GC during the test: an *os.File's finalizer would close a leaked
	// file and hide the leak.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if n := openFilesUnder(t, root); n != 0 {
		t.Fatalf("%d files open before any request", n)
	}
	resp, _ := doReq(t, c, "GET", base+"/static/hello.txt")
	etag := resp.Header.Get("ETag")
	for _, b := range []string{base, inlineBase} {
		for _, r := range [][]string{
			{"GET", "/static/hello.txt"},
			{"GET", "/static/hello.txt", "If-None-Match", etag},
			{"GET", "/static/hello.txt", "If-Match", `"x"`},
			{"GET", "/static/big.bin", "Range", "bytes=9999999-"},
			{"GET", "/static/big.bin", "Range", "bytes=0-1,5-6"},
			{"GET", "/static/big.bin"},
			{"HEAD", "/static/big.bin"},
			{"GET", "/static/sub/"},
			{"GET", "/static/missing"},
			{"GET", "/static/escape.txt"},
		} {
			doReq(t, c, r[0], b+r[1], r[2:]...)
		}
	}
	// A client that reads 100 KB of 4 MB and hangs up.
	for range 5 {
		resp, err := c.Get(base + "/static/big.bin")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 100<<10)); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close() // closes the connection: the body was not read to the end
	}
	c.Transport.(*http.Transport).CloseIdleConnections()
	waitFor(t, 5*time.Second, "every served file to be closed", func() bool { return openFilesUnder(t, root) == 0 })
}

// A large file streams with backpressure: the server never holds it
// whole. 256 MiB (a sparse file) go through while the heap grows by far
// less, and a client that stops reading holds the handler, not memory.
func TestStaticStreamsLargeFile(t *testing.T) {
	root := staticTree(t)
	const size = 256 << 20
	f, err := os.Create(filepath.Join(root, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	base := staticApp(t, root)
	c := newClient(t)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseline := ms.HeapAlloc
	resp, err := c.Get(base + "/static/huge.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ContentLength != size {
		t.Fatalf("Content-Length %d", resp.ContentLength)
	}
	// Stall after 1 MiB: the server must stop, not buffer the rest.
	if _, err := io.ReadFull(resp.Body, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	var peak uint64
	sample := func() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	sample()
	buf := make([]byte, 256<<10)
	total := int64(1 << 20)
	for i := 0; ; i++ {
		n, err := resp.Body.Read(buf)
		total += int64(n)
		if i%64 == 0 {
			sample()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if total != size {
		t.Fatalf("read %d bytes", total)
	}
	if grew := int64(peak) - int64(baseline); grew > 48<<20 {
		t.Fatalf("heap grew by %d MiB while streaming a %d MiB file", grew>>20, size>>20)
	}
}
