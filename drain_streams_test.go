package gwist_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// A drain ends long-lived handlers instead of waiting for the Shutdown
// deadline and cutting them: a Ctx.SSE stream's Done closes (the stream
// ends cleanly, with its last chunk), and a long poll watching
// App.Draining returns its answer. Shutdown then returns nil at once.
func TestDrainEndsStreamsCleanly(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()), gwist.WithSSEHeartbeat(-1))
	app.GET("/sse", func(c *gwist.Ctx) error {
		return c.SSE(func(s *gwist.SSE) error {
			if err := s.Send(gwist.SSEEvent{Data: "hello"}); err != nil {
				return err
			}
			<-s.Done()
			return s.Send(gwist.SSEEvent{Event: "bye", Data: "server draining"})
		})
	})
	app.GET("/poll", func(c *gwist.Ctx) error {
		select {
		case <-app.Draining():
			return c.String(200, "no news, reconnect")
		case <-c.Context().Done():
			return nil
		}
	})
	base := "http://" + startApp(t, app)
	c := newClient(t)

	sse, err := c.Get(base + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer sse.Body.Close()
	br := bufio.NewReader(sse.Body)
	if line, _ := br.ReadString('\n'); line != "data: hello\n" {
		t.Fatalf("first event: %q", line)
	}
	poll := make(chan string, 1)
	go func() {
		resp, err := newClient(t).Get(base + "/poll")
		if err != nil {
			poll <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		poll <- string(b)
	}()
	waitFor(t, 2*time.Second, "both handlers running", func() bool {
		st := app.Stats()
		return st.Handlers+st.Streams == 2
	})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	begun := time.Now()
	if err := app.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v (after %v)", err, time.Since(begun))
	}
	rest, err := io.ReadAll(br) // a clean end: the chunked body's last chunk
	if err != nil || !strings.Contains(string(rest), "event: bye\ndata: server draining\n") {
		t.Fatalf("rest of the stream: %q, %v", rest, err)
	}
	if got := <-poll; got != "no news, reconnect" {
		t.Fatalf("long poll: %q", got)
	}
	t.Logf("Shutdown took %v", time.Since(begun))
}
