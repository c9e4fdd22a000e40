package gwist_test

import (
	"bufio"
	"net/http"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// A streamed response leaves the worker pool's bound once its head is sent:
// with 2 workers, 6 SSE listeners stay open and a plain request is still
// served, not refused with 503. The count of streams follows them.
func TestStreamsLeaveWorkerBound(t *testing.T) {
	const listeners = 6
	app := gwist.New(gwist.WithWorkers(2), gwist.WithLogger(discardLogger()))
	app.GET("/feed", func(c *gwist.Ctx) error {
		return c.SSE(func(s *gwist.SSE) error {
			if err := s.Send(gwist.SSEEvent{Data: "hi"}); err != nil {
				return err
			}
			<-s.Done()
			return nil
		})
	})
	app.GET("/fast", func(c *gwist.Ctx) error { return c.String(200, "fast") })
	addr := startApp(t, app)
	conns := make([]*rawConn, listeners)
	for i := range conns {
		conns[i] = dialRaw(t, addr)
		conns[i].send("GET /feed HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(conns[i].br, nil)
		if err != nil {
			t.Fatalf("listener %d: %v", i, err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("listener %d: status %d, want 200", i, resp.StatusCode)
		}
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		if err != nil || line != "data: hi\n" {
			t.Fatalf("listener %d: first line %q, %v", i, line, err)
		}
	}
	r := dialRaw(t, addr)
	r.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, body := r.readResponse("GET"); resp.StatusCode != 200 || body != "fast" {
		t.Fatalf("with %d streams open: %d %q", listeners, resp.StatusCode, body)
	}
	if st := app.Stats(); st.Streams != listeners {
		t.Fatalf("Stats().Streams = %d, want %d", st.Streams, listeners)
	}
	for _, c := range conns {
		c.c.Close()
	}
	if !testkit.Eventually(10*time.Second, func() bool { return app.Stats().Streams == 0 }) {
		t.Fatalf("Stats().Streams = %d after every listener left", app.Stats().Streams)
	}
}
