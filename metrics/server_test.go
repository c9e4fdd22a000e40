package metrics_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/metrics"
)

// Connections held open are counted by protocol while they are open, and
// no longer once closed. The scrape's own plaintext connection counts as
// one h1 connection.
func TestOpenConnectionsByProtocol(t *testing.T) {
	_, plain, secure := metricsApp(t)
	var conns []net.Conn
	hold := func(c net.Conn, err error) net.Conn {
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		return c
	}
	for range 2 { // plaintext HTTP/1.1, after one request each
		c := hold(net.Dial("tcp", plain))
		io.WriteString(c, "GET /users/1 HTTP/1.1\r\nHost: x\r\n\r\n")
		if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 { // HTTP/1.1 over TLS
		hold(tls.Dial("tcp", secure, clientTLS(t, "http/1.1")))
	}
	h2c := hold(net.Dial("tcp", plain)) // h2c by prior knowledge
	io.WriteString(h2c, http2.ClientPreface)
	http2.NewFramer(h2c, h2c).WriteSettings()
	h2tls := hold(tls.Dial("tcp", secure, clientTLS(t, "h2"))) // h2 over TLS
	io.WriteString(h2tls, http2.ClientPreface)
	http2.NewFramer(h2tls, h2tls).WriteSettings()

	want := map[[2]string]float64{{"h1", "false"}: 3, {"h1", "true"}: 3, {"h2", "false"}: 1, {"h2", "true"}: 1}
	check := func() (bad string) {
		f := scrape(t, "http://"+plain+"/metrics")
		for k, w := range want {
			if got := f.value("gwist_connections_open", "protocol="+k[0], "tls="+k[1]); got != w {
				bad += " " + k[0] + "/tls=" + k[1] + ": " + ftoa(got) + " want " + ftoa(w)
			}
		}
		return bad
	}
	var bad string
	defer func() {
		if t.Failed() {
			t.Log("last difference:", bad)
		}
	}()
	waitFor(t, 5*time.Second, "the connections to be counted", func() bool { bad = check(); return bad == "" })
	for _, c := range conns {
		c.Close()
	}
	want = map[[2]string]float64{{"h1", "false"}: 1, {"h1", "true"}: 0, {"h2", "false"}: 0, {"h2", "true"}: 0}
	waitFor(t, 5*time.Second, "closed connections to leave the count", func() bool { bad = check(); return bad == "" })
}

// Bytes that are not TLS on the TLS port fail the handshake, counted under
// their reason.
func TestFailedHandshakeByReason(t *testing.T) {
	_, plain, secure := metricsApp(t)
	c, err := net.Dial("tcp", secure)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.Copy(io.Discard, c) // the server closes it
	waitFor(t, 5*time.Second, "the failure to be counted", func() bool {
		f := scrape(t, "http://"+plain+"/metrics")
		return f.value("gwist_tls_handshake_failures_total", "reason=not_tls") == 1 &&
			f.value("gwist_tls_handshakes_total", "resumed=false") == 0
	})
}

// A full worker pool: the running handler is counted while it runs, and
// the request refused with 503 is counted as a rejection. The metrics are
// scraped through HTTPHandler on a net/http server, since the App's one
// worker is busy.
func TestWorkerRejections(t *testing.T) {
	app := quietApp(gwist.WithWorkers(1))
	started, release := make(chan struct{}), make(chan struct{})
	app.GET("/block", func(c *gwist.Ctx) error {
		close(started)
		<-release
		return c.String(200, "done")
	})
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	m := metrics.New(app)
	admin := httptest.NewServer(m.HTTPHandler())
	defer admin.Close()
	plain := start(t, app, nil)
	done := make(chan int, 1)
	go func() {
		resp, err := http.Get("http://" + plain + "/block")
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-started
	h1 := h1Client(t)
	if code := do(t, h1, "GET", "http://"+plain+"/", ""); code != 503 {
		t.Fatalf("with the pool full: %d, want 503", code)
	}
	f := scrape(t, admin.URL)
	if got := f.value("gwist_worker_rejected_total"); got != 1 {
		t.Errorf("rejections: %v, want 1", got)
	}
	if got := f.value("gwist_worker_running"); got != 1 {
		t.Errorf("running handlers: %v, want 1", got)
	}
	if got := f.value("gwist_worker_queue_depth"); got != 0 {
		t.Errorf("queue depth: %v, want 0", got)
	}
	close(release)
	if code := <-done; code != 200 {
		t.Fatalf("the blocked request: %d", code)
	}
	waitFor(t, 5*time.Second, "the handler to leave the running count", func() bool {
		return scrape(t, admin.URL).value("gwist_worker_running") == 0
	})
	// The 503 never reached the App: it is a rejection, not a request.
	if got := scrape(t, admin.URL).value("gwist_http_requests_total", "route=/", "status=5xx"); got != -1 {
		t.Errorf("the refused request was counted as a request: %v", got)
	}
}

// HTTP/2 streams: one in progress is counted open; the client's
// RST_STREAM is counted as received with its code, the server's
// RST_STREAM for a malformed request as sent with its code, and the
// streams in total.
func TestHTTP2StreamsAndResets(t *testing.T) {
	forever := quietApp(gwist.WithHTTP2(true))
	forever.GET("/forever", func(c *gwist.Ctx) error {
		chunk := bytes.Repeat([]byte("z"), 8192)
		for {
			if _, err := c.Write(chunk); err != nil {
				return err
			}
			if err := c.Flush(); err != nil {
				return err
			}
		}
	})
	m := metrics.New(forever)
	admin := httptest.NewServer(m.HTTPHandler())
	defer admin.Close()
	addr := start(t, forever, nil)

	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fr := http2.NewFramer(nc, nc)
	io.WriteString(nc, http2.ClientPreface)
	fr.WriteSettings()
	headers := func(id uint32, fields ...[2]string) {
		var hb bytes.Buffer
		enc := hpack.NewEncoder(&hb)
		for _, f := range fields {
			enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
			t.Fatal(err)
		}
	}
	headers(1, [2]string{":method", "GET"}, [2]string{":scheme", "http"}, [2]string{":path", "/forever"}, [2]string{":authority", "x"})
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	for { // wait for the response to start
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := f.(*http2.DataFrame); ok && d.StreamID == 1 {
			break
		}
	}
	f := scrape(t, admin.URL)
	if got := f.value("gwist_http2_streams_open"); got != 1 {
		t.Errorf("open streams while /forever streams: %v, want 1", got)
	}
	fr.WriteRSTStream(1, http2.ErrCodeCancel)
	headers(3, [2]string{":method", "GET"}, [2]string{":scheme", "http"}, [2]string{":authority", "x"}) // no :path
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("no RST_STREAM for the malformed request: %v", err)
		}
		if rst, ok := f.(*http2.RSTStreamFrame); ok && rst.StreamID == 3 {
			if rst.ErrCode != http2.ErrCodeProtocol {
				t.Fatalf("RST_STREAM %v", rst.ErrCode)
			}
			break
		}
	}
	waitFor(t, 5*time.Second, "the streams and resets to be counted", func() bool {
		f = scrape(t, admin.URL)
		return f.value("gwist_http2_streams_open") == 0 &&
			f.value("gwist_http2_resets_total", "direction=received", "code=CANCEL") == 1 &&
			f.value("gwist_http2_resets_total", "direction=sent", "code=PROTOCOL_ERROR") == 1
	})
	if got := f.value("gwist_http2_streams_total"); got != 2 {
		t.Errorf("streams opened: %v, want 2", got)
	}
	// A stream whose connection is closed under it leaves the open count
	// too (its handler is on a worker when the connection goes).
	headers(5, [2]string{":method", "GET"}, [2]string{":scheme", "http"}, [2]string{":path", "/forever"}, [2]string{":authority", "x"})
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		if h, ok := f.(*http2.HeadersFrame); ok && h.StreamID == 5 { // the window is spent: no DATA
			break
		}
	}
	if got := scrape(t, admin.URL).value("gwist_http2_streams_open"); got != 1 {
		t.Errorf("open streams: %v, want 1", got)
	}
	nc.Close()
	waitFor(t, 5*time.Second, "the closed connection's stream to leave the open count", func() bool {
		return scrape(t, admin.URL).value("gwist_http2_streams_open") == 0
	})
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// An open WebSocket connection is counted, and leaves the count when it
// closes.
func TestWebSocketConnections(t *testing.T) {
	app := quietApp()
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{}))
	app.GET("/metrics", metrics.New(app).Handler())
	plain := start(t, app, nil)
	c, err := net.Dial("tcp", plain)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	if got := scrape(t, "http://"+plain+"/metrics").value("gwist_websocket_connections_open"); got != 1 {
		t.Errorf("open WebSockets: %v, want 1", got)
	}
	c.Close()
	waitFor(t, 5*time.Second, "the closed WebSocket to leave the count", func() bool {
		return scrape(t, "http://"+plain+"/metrics").value("gwist_websocket_connections_open") == 0
	})
}
