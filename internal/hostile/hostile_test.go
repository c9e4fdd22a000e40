package hostile

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/websocket"
)

// wsServer is a minimal WebSocket server for the smoke tests: after the
// handshake it calls serve with the hijacked connection.
func wsServer(t *testing.T, serve func(c net.Conn, br *bufio.Reader)) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + websocket.AcceptKey(r.Header.Get("Sec-WebSocket-Key")) + "\r\n\r\n")
		_ = brw.Flush()
		serve(c, brw.Reader)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// answerPings reads frames, answers each ping with a pong and, after
// closeAfter pings (0: never), sends close 1008 and closes.
func answerPings(closeAfter int) func(net.Conn, *bufio.Reader) {
	return func(c net.Conn, br *bufio.Reader) {
		r := websocket.NewReader(websocket.Config{})
		buf := make([]byte, 32<<10)
		var pending []byte
		pings := 0
		for {
			n, err := br.Read(buf)
			pending = append(pending, buf[:n]...)
			for len(pending) > 0 {
				k := r.Feed(pending)
				pending = pending[k:]
				for ev, ok := r.Next(); ok; ev, ok = r.Next() {
					if ev.Kind != websocket.EventPing {
						continue
					}
					pings++
					if closeAfter > 0 && pings >= closeAfter {
						// Close as a polite server does: the close frame,
						// then read a while so that no reset destroys it.
						_, _ = c.Write(websocket.AppendClose(nil, websocket.ClosePolicyViolation, "too many pings"))
						_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
						_, _ = io.Copy(io.Discard, br)
						return
					}
					if _, err := c.Write(websocket.AppendFrame(nil, websocket.OpPong, true, ev.Payload)); err != nil {
						return
					}
				}
				if k == 0 {
					break
				}
			}
			pending = append([]byte(nil), pending...)
			if err != nil || r.Err() != nil {
				return
			}
		}
	}
}

func TestPingFloodReadsPongs(t *testing.T) {
	addr := wsServer(t, answerPings(0))
	res := PingFlood(context.Background(), PingFloodConfig{Addr: addr, Conns: 2, ReadPongs: true, Duration: 300 * time.Millisecond})
	if res.Dialed != 2 || res.PingsSent == 0 || res.Pongs == 0 || res.BytesRead == 0 || res.Closed != 0 {
		t.Fatalf("%+v", res)
	}
}

func TestPingFloodReadRate(t *testing.T) {
	addr := wsServer(t, answerPings(0))
	res := PingFlood(context.Background(), PingFloodConfig{Addr: addr, ReadPongs: true, ReadRate: 1 << 20, Duration: 300 * time.Millisecond})
	if res.BytesRead == 0 || res.BytesRead > 600<<10 {
		t.Fatalf("read %d bytes in 300 ms at 1 MiB/s: %+v", res.BytesRead, res)
	}
}

func TestPingFloodSeesClose(t *testing.T) {
	addr := wsServer(t, answerPings(100))
	for _, read := range []bool{true, false} {
		res := PingFlood(context.Background(), PingFloodConfig{Addr: addr, ReadPongs: read, Duration: time.Second})
		c := res.Conns[0]
		if !c.ClosedByServer || res.Closed != 1 || c.PingsSent < 100 {
			t.Fatalf("read %v: %+v", read, res)
		}
		if read && c.CloseCode != int(websocket.ClosePolicyViolation) {
			t.Fatalf("close code %d, want 1008: %+v", c.CloseCode, c)
		}
	}
}

func TestNoReadEcho(t *testing.T) {
	// A server that never reads (until the test ends): every connection's
	// writes block.
	end := make(chan struct{})
	stuck := wsServer(t, func(c net.Conn, _ *bufio.Reader) { <-end })
	t.Cleanup(func() { close(end) })
	res := NoReadEcho(context.Background(), NoReadEchoConfig{Addr: stuck, Conns: 2, Messages: 64, Size: 1 << 20,
		BlockTimeout: 200 * time.Millisecond, Duration: 800 * time.Millisecond})
	if res.Dialed != 2 || res.Blocked != 2 || res.Written >= res.Attempted || res.Written == 0 {
		t.Fatalf("never-reading server: %+v", res)
	}
	// A server that reads and drops everything, then closes.
	drop := wsServer(t, func(c net.Conn, br *bufio.Reader) {
		_, _ = io.CopyN(io.Discard, br, 4*(1<<10+4+4))
	})
	res = NoReadEcho(context.Background(), NoReadEchoConfig{Addr: drop, Messages: 4, Size: 1 << 10,
		BlockTimeout: 200 * time.Millisecond, Duration: time.Second})
	if res.Complete != 1 || res.Written != res.Attempted || res.Closed != 1 {
		t.Fatalf("reading server: %+v %+v", res, res.Conns)
	}
}

func TestH2StalledUploads(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /upload", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // blocks: the body stalls
	})
	mux.HandleFunc("POST /busy", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	res := H2StalledUploads(context.Background(), H2StallConfig{Addr: addr, Conns: 2, Streams: 5, Duration: 300 * time.Millisecond})
	if res.Dialed != 2 || res.Opened != 10 || res.Outcomes[OutcomeOpen] != 10 || res.MaxConcurrentStreams == 0 {
		t.Fatalf("stalled: %+v", res)
	}
	for _, s := range res.Streams {
		if !s.DataSent {
			t.Fatalf("stream %d sent no data", s.ID)
		}
	}
	res = H2StalledUploads(context.Background(), H2StallConfig{Addr: addr, Path: "/busy", Streams: 3, Duration: 300 * time.Millisecond})
	if res.Outcomes["status 503"] != 3 || res.LastEnd == 0 {
		t.Fatalf("busy: %+v", res)
	}
}

func TestLiveProbe(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	res := LiveProbe(context.Background(), ProbeConfig{URL: srv.URL + "/", Interval: 5 * time.Millisecond, Duration: 200 * time.Millisecond})
	if res.Count < 5 || res.OK == 0 || res.Non200 == 0 || res.Statuses[503] != res.Non200 || res.Errors != 0 || res.P50 == 0 || res.Max < res.P99 {
		t.Fatalf("%+v", res)
	}
}

func TestRSS(t *testing.T) {
	s, err := SampleRSS(os.Getpid(), 10*time.Millisecond)
	if err != nil {
		t.Skip("no /proc:", err)
	}
	testkit.WaitFor(t, 5*time.Second, "two samples after the first", func() bool { return s.Now().Samples >= 3 })
	s.MarkEnd()
	res := s.WaitAfter(context.Background(), time.Second, true)
	if res.Before <= 0 || res.Peak < res.Before || res.End <= 0 || res.After <= 0 || !res.Recovered || res.Samples < 3 {
		t.Fatalf("%+v", res)
	}
}

// ReadPressure parses this machine's PSI totals, which never go back.
func TestReadPressure(t *testing.T) {
	a, err := ReadPressure()
	if err != nil {
		t.Skipf("no pressure stall information here: %v", err)
	}
	time.Sleep(20 * time.Millisecond)
	b, err := ReadPressure()
	if err != nil {
		t.Fatal(err)
	}
	if d := b.Sub(a); d.CPU < 0 || d.IO < 0 || d.Memory < 0 || a.CPU == 0 && a.IO == 0 {
		t.Errorf("pressure %+v then %+v", a, b)
	}
}
