package gwist_test

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// patternReader yields n patterned bytes (see patterned) and hides its
// length, so net/http sends them chunked unless told the length.
type patternReader struct{ off, n int64 }

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n-r.off)]
	patterned(p, r.off)
	r.off += int64(len(p))
	return len(p), nil
}

// patternSum is the sha256 of n patterned bytes.
func patternSum(n int64) string {
	h := sha256.New()
	_, _ = io.Copy(h, &patternReader{n: n})
	return hex.EncodeToString(h.Sum(nil))
}

// uploadResult is what the /upload handlers of these tests answer.
type uploadResult struct {
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// hashUpload is a streamed-body handler: it hashes the body as it arrives.
func hashUpload(c *gwist.Ctx) error {
	h := sha256.New()
	n, err := io.Copy(h, c.BodyReader())
	if err != nil {
		return err
	}
	return c.JSON(200, uploadResult{n, hex.EncodeToString(h.Sum(nil))})
}

// rssBytes is the process's resident set size (Linux), or -1.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

// peakRSS samples the RSS every 5 ms until stop is closed, then reports
// the largest sample.
func peakRSS(stop <-chan struct{}) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		peak := rssBytes()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				out <- max(peak, rssBytes())
				return
			case <-t.C:
				peak = max(peak, rssBytes())
			}
		}
	}()
	return out
}

// A 64 MiB upload, with a Content-Length and chunked, reaches the handler
// intact as a stream, while the bytes buffered between the loop and the
// handler stay within WithMaxBodyBuffered and the process's memory does not
// grow with the body. (The client runs in the same process and streams
// too.)
func TestStreamBodyLargeUpload(t *testing.T) {
	const size = 64 << 20
	app := gwist.New()
	app.StreamBody(0).POST("/upload", func(c *gwist.Ctx) error {
		c.SetHeader("X-Chunked", strconv.FormatBool(c.Request().Chunked))
		return hashUpload(c)
	})
	base := "http://" + startApp(t, app)
	client := newClient(t)
	client.Timeout = 60 * time.Second
	want := patternSum(size)
	for _, chunked := range []bool{false, true} {
		stop := make(chan struct{})
		before := rssBytes()
		peak := peakRSS(stop)
		req, _ := http.NewRequest("POST", base+"/upload", &patternReader{n: size})
		if !chunked {
			req.ContentLength = size
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got uploadResult
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		close(stop)
		growth := <-peak - before
		if err != nil || resp.StatusCode != 200 || got.Bytes != size || got.SHA256 != want {
			t.Fatalf("chunked=%v: %d %+v %v", chunked, resp.StatusCode, got, err)
		}
		if h := resp.Header.Get("X-Chunked"); h != strconv.FormatBool(chunked) {
			t.Fatalf("chunked=%v but the server saw chunked=%s", chunked, h)
		}
		peakBuf := app.Stats().Backpressure.PeakBodyBuffered
		t.Logf("chunked=%v: RSS growth %d KiB, peak body buffered %d KiB", chunked, growth>>10, peakBuf>>10)
		if peakBuf > 128<<10 || peakBuf == 0 {
			t.Fatalf("peak body buffered %d, want (0, 128 KiB]", peakBuf)
		}
		if growth > 32<<20 {
			t.Fatalf("RSS grew by %d MiB during a %d MiB upload", growth>>20, size>>20)
		}
	}
}

// A handler that reads slowly holds the connection's buffered body bytes
// under WithMaxBodyBuffered: the engine stops reading the socket, so the
// client's writes stall (TCP flow control), instead of gnet's input buffer
// growing (which would pass WithMaxInboundBytes and close the connection).
func TestStreamBodyBackpressure(t *testing.T) {
	const (
		size   = 8 << 20
		bufCap = 32 << 10
	)
	var taken atomic.Int64
	release := make(chan struct{})
	app := gwist.New(gwist.WithMaxBodyBuffered(bufCap), gwist.WithMaxInboundBytes(256<<10),
		gwist.WithLogger(discardLogger()))
	app.StreamBody(0).POST("/slow", func(c *gwist.Ctx) error {
		<-release // not reading at all, for a while
		h := sha256.New()
		buf := make([]byte, 8<<10)
		r := c.BodyReader()
		for {
			n, err := r.Read(buf)
			h.Write(buf[:n])
			taken.Add(int64(n))
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if taken.Load() < 1<<20 {
				time.Sleep(time.Millisecond) // slowly at first
			}
		}
		return c.JSON(200, uploadResult{taken.Load(), hex.EncodeToString(h.Sum(nil))})
	})
	addr := startApp(t, app)
	rc := dialSmall(t, addr)
	_ = rc.c.(interface{ SetWriteBuffer(int) error }).SetWriteBuffer(16 << 10)
	var sent atomic.Int64
	sendErr := make(chan error, 1)
	go func() {
		_, err := io.WriteString(rc.c, "POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n")
		buf := make([]byte, 16<<10)
		for off := int64(0); err == nil && off < size; {
			p := buf[:min(int64(len(buf)), size-off)]
			patterned(p, off)
			var n int
			n, err = rc.c.Write(p)
			off += int64(n)
			sent.Store(off)
		}
		sendErr <- err
	}()
	// While the handler reads nothing the client gets stuck: what it sent
	// is in the ring, gnet's buffer and the two kernels' socket buffers.
	time.Sleep(300 * time.Millisecond)
	stalled := sent.Load()
	time.Sleep(300 * time.Millisecond)
	if s := sent.Load(); s != stalled || s >= size {
		t.Fatalf("the client kept sending while the handler read nothing: %d then %d bytes", stalled, s)
	}
	st := app.Stats().Backpressure
	t.Logf("client stalled after %d KiB; peak body buffered %d KiB, peak inbound %d KiB, read re-arms %d",
		stalled>>10, st.PeakBodyBuffered>>10, st.PeakInbound>>10, st.ReadRearms)
	close(release)
	resp, body := rc.readResponse("POST")
	var got uploadResult
	if err := json.Unmarshal([]byte(body), &got); err != nil || resp.StatusCode != 200 ||
		got.Bytes != size || got.SHA256 != patternSum(size) {
		t.Fatalf("%d %q %v", resp.StatusCode, body, err)
	}
	if err := <-sendErr; err != nil {
		t.Fatal(err)
	}
	st = app.Stats().Backpressure
	if st.PeakBodyBuffered > bufCap || st.InboundCapped != 0 {
		t.Fatalf("peak body buffered %d (cap %d), connections over the inbound cap %d", st.PeakBodyBuffered, bufCap, st.InboundCapped)
	}
}

// On an ordinary route BodyReader reads the buffered body, and Body is the
// body; on a streaming route Body is nil and BindJSON reads the stream.
func TestBodyReaderBothRoutes(t *testing.T) {
	app := gwist.New()
	echo := func(c *gwist.Ctx) error {
		b, err := io.ReadAll(c.BodyReader())
		if err != nil {
			return err
		}
		return c.String(200, strconv.Itoa(len(c.Body()))+":"+string(b))
	}
	app.POST("/buffered", echo)
	s := app.StreamBody(0)
	s.POST("/streamed", echo)
	s.POST("/json", func(c *gwist.Ctx) error {
		var v struct{ N int }
		if err := c.BindJSON(&v); err != nil {
			return err
		}
		return c.String(200, strconv.Itoa(v.N))
	})
	base := "http://" + startApp(t, app)
	client := newClient(t)
	for path, want := range map[string]string{"/buffered": "5:hello", "/streamed": "0:hello"} {
		resp, err := client.Post(base+path, "text/plain", strings.NewReader("hello"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != want {
			t.Fatalf("%s: %q, want %q", path, b, want)
		}
	}
	resp, err := client.Post(base+"/json", "application/json", strings.NewReader(`{"N":42}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "42" {
		t.Fatalf("BindJSON on a streamed body: %q", b)
	}
}

// Trailers of a chunked streamed body are in Request().Trailers once the
// reader reached EOF.
func TestStreamBodyTrailers(t *testing.T) {
	app := gwist.New()
	app.StreamBody(0).POST("/t", func(c *gwist.Ctx) error {
		before := len(c.Request().Trailers)
		b, err := io.ReadAll(c.BodyReader())
		if err != nil {
			return err
		}
		tr := c.Request().Trailers
		if before != 0 || len(tr) != 1 {
			return errors.New("trailers: " + strconv.Itoa(before) + " before EOF, " + strconv.Itoa(len(tr)) + " after")
		}
		return c.String(200, string(b)+" "+tr[0].Name+"="+tr[0].Value)
	})
	rc := dialRaw(t, startApp(t, app))
	rc.send("POST /t HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Sum: 7\r\n\r\n")
	if resp, body := rc.readResponse("POST"); resp.StatusCode != 200 || body != "hello X-Sum=7" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}

// Over HTTPS a streamed body flows the same way (the loop decrypts, and
// pauses decrypting while the ring is full): 16 MiB with a length and
// chunked, hashed right, within the buffer cap.
func TestStreamBodyHTTPS(t *testing.T) {
	const size = 16 << 20
	app := gwist.New()
	app.StreamBody(0).POST("/upload", func(c *gwist.Ctx) error {
		time.Sleep(50 * time.Millisecond) // let the ring fill first
		return hashUpload(c)
	})
	addr := startTLS(t, app, serverTLSConfig(t))
	client := httpsClient(t, &tls.Config{ServerName: "localhost"})
	client.Timeout = 60 * time.Second
	want := patternSum(size)
	for _, chunked := range []bool{false, true} {
		req, _ := http.NewRequest("POST", "https://"+addr+"/upload", &patternReader{n: size})
		if !chunked {
			req.ContentLength = size
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got uploadResult
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || got.Bytes != size || got.SHA256 != want {
			t.Fatalf("chunked=%v: %+v %v", chunked, got, err)
		}
	}
	if p := app.Stats().Backpressure.PeakBodyBuffered; p > 128<<10 {
		t.Fatalf("peak body buffered %d", p)
	}
}

// Full duplex: a handler that streams its response while it reads its body
// (an echo, as a proxy would do). 8 MiB each way through both buffers,
// with a client that writes and reads at the same time.
func TestStreamBodyFullDuplexEcho(t *testing.T) {
	const size = 8 << 20
	app := gwist.New()
	app.StreamBody(0).PUT("/echo", func(c *gwist.Ctx) error {
		if err := c.Flush(); err != nil { // the head goes out at once
			return err
		}
		_, err := io.Copy(c, c.BodyReader())
		return err
	})
	rc := dialRaw(t, startApp(t, app))
	go func() {
		_, _ = io.WriteString(rc.c, "PUT /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
		buf := make([]byte, 32<<10)
		for off := int64(0); off < size; off += int64(len(buf)) {
			patterned(buf, off)
			if _, err := io.WriteString(rc.c, strconv.FormatInt(int64(len(buf)), 16)+"\r\n"); err != nil {
				return
			}
			if _, err := rc.c.Write(append(buf, '\r', '\n')[:len(buf)+2]); err != nil {
				return
			}
		}
		_, _ = io.WriteString(rc.c, "0\r\n\r\n")
	}()
	resp, err := http.ReadResponse(rc.br, &http.Request{Method: "PUT"})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n, err := io.Copy(h, resp.Body)
	if err != nil || n != size || hex.EncodeToString(h.Sum(nil)) != patternSum(size) {
		t.Fatalf("echoed %d bytes: %v", n, err)
	}
}

// Forms on a streaming route: a multipart upload is parsed as it arrives
// (its 20 MiB file spilled to a temporary file by mime/multipart, past
// WithMaxBodyBytes, which does not apply there), an urlencoded body is
// read up to WithMaxBodyBytes.
func TestStreamBodyForms(t *testing.T) {
	const size = 20 << 20
	app := gwist.New(gwist.WithMaxBodyBytes(1 << 20))
	s := app.StreamBody(0)
	s.POST("/file", func(c *gwist.Ctx) error {
		fh, err := c.FormFile("f")
		if err != nil {
			return err
		}
		f, err := fh.Open()
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		n, _ := io.Copy(h, f)
		return c.String(200, c.FormValue("name")+" "+strconv.FormatInt(n, 10)+" "+hex.EncodeToString(h.Sum(nil)))
	})
	s.POST("/form", func(c *gwist.Ctx) error {
		v, err := c.Form()
		if err != nil {
			return err
		}
		return c.String(200, v.Get("a"))
	})
	base := "http://" + startApp(t, app)
	client := newClient(t)
	client.Timeout = 60 * time.Second

	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		_ = mw.WriteField("name", "data.bin")
		w, _ := mw.CreateFormFile("f", "data.bin")
		_, _ = io.Copy(w, &patternReader{n: size})
		pw.CloseWithError(mw.Close())
	}()
	resp, err := client.Post(base+"/file", mw.FormDataContentType(), pr)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "data.bin " + strconv.Itoa(size) + " " + patternSum(size); string(b) != want {
		t.Fatalf("%d %q", resp.StatusCode, b)
	}

	for body, want := range map[string]int{"a=1&b=2": 200, "a=" + strings.Repeat("x", 1<<20): 413} {
		resp, err := client.Post(base+"/form", "application/x-www-form-urlencoded", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || want == 200 && string(b) != "1" {
			t.Fatalf("%d %q, want %d", resp.StatusCode, b, want)
		}
	}
}
