package gwist_test

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// Every field is written as the spec reads it: multi-line data as one data
// field per line, retry in milliseconds, an empty line after each event;
// the headers say text/event-stream and no-cache; fields that would inject
// lines are refused.
func TestSSEFieldsAndHeaders(t *testing.T) {
	injected := make(chan error, 2)
	app := gwist.New(gwist.WithSSEHeartbeat(-1))
	app.GET("/ev", func(c *gwist.Ctx) error {
		return c.SSE(func(s *gwist.SSE) error {
			if err := s.Send(gwist.SSEEvent{ID: "7", Event: "tick", Data: "a\nb\r\nc\rd", Retry: 1500 * time.Millisecond}); err != nil {
				return err
			}
			injected <- s.Send(gwist.SSEEvent{Event: "x\ndata: evil"})
			injected <- s.Send(gwist.SSEEvent{ID: "1\r"})
			if err := s.Comment("note"); err != nil {
				return err
			}
			return s.Send(gwist.SSEEvent{Data: "  spaced"})
		})
	})
	resp, body := get(t, newClient(t), "http://"+startApp(t, app)+"/ev")
	want := "id: 7\nevent: tick\nretry: 1500\ndata: a\ndata: b\ndata: c\ndata: d\n\n: note\n\ndata:   spaced\n\n"
	if body != want {
		t.Fatalf("body\n%q\nwant\n%q", body, want)
	}
	if ct, cc := resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"); ct != "text/event-stream" || cc != "no-cache" {
		t.Fatalf("Content-Type %q Cache-Control %q", ct, cc)
	}
	for range 2 {
		if err := <-injected; !errors.Is(err, gwist.ErrSSEField) {
			t.Fatalf("injecting Send: %v", err)
		}
	}
}

// sseStepApp serves /steps: n events, each sent only after the test says
// the client received the previous one, so a client that got them only at
// the end would stall the test.
func sseStepApp(n int) (*gwist.App, chan struct{}, chan error) {
	ack, done := make(chan struct{}), make(chan error, 1)
	app := gwist.New(gwist.WithSSEHeartbeat(-1))
	app.GET("/steps", func(c *gwist.Ctx) error {
		err := c.SSE(func(s *gwist.SSE) error {
			for i := range n {
				if err := s.Send(gwist.SSEEvent{Data: string(rune('1' + i))}); err != nil {
					return err
				}
				select {
				case <-ack:
				case <-time.After(10 * time.Second):
					return errors.New("event not received while the handler waited")
				}
			}
			return nil
		})
		done <- err
		return err
	})
	return app, ack, done
}

// A Go client sees each event when it is sent, not at the end.
func TestSSEEventsArriveAsSent(t *testing.T) {
	app, ack, done := sseStepApp(3)
	resp, err := newClient(t).Get("http://" + startApp(t, app) + "/steps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i := range 3 {
		line, err := br.ReadString('\n')
		blank, err2 := br.ReadString('\n')
		if err != nil || err2 != nil || line != "data: "+string(rune('1'+i))+"\n" || blank != "\n" {
			t.Fatalf("event %d: %q %q %v %v", i, line, blank, err, err2)
		}
		ack <- struct{}{}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Fatalf("after the last event: %q %v", rest, err)
	}
}

// curl -N sees each event as it is sent too.
func TestSSECurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	app, ack, done := sseStepApp(3)
	cmd := exec.Command(curl, "-sS", "-N", "http://"+startApp(t, app)+"/steps")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	br := bufio.NewReader(out)
	for i := range 3 {
		line, err := br.ReadString('\n')
		if err != nil || line != "data: "+string(rune('1'+i))+"\n" {
			t.Fatalf("event %d: %q %v", i, line, err)
		}
		if blank, _ := br.ReadString('\n'); blank != "\n" {
			t.Fatalf("event %d not ended: %q", i, blank)
		}
		ack <- struct{}{}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// An idle stream sends heartbeat comments; when the client leaves, the
// stream's Done closes and the handler returns.
func TestSSEHeartbeatAndClientLeaves(t *testing.T) {
	returned := make(chan error, 1)
	app := gwist.New(gwist.WithSSEHeartbeat(20*time.Millisecond), gwist.WithLogger(discardLogger()))
	app.GET("/idle", func(c *gwist.Ctx) error {
		err := c.SSE(func(s *gwist.SSE) error {
			if err := s.Send(gwist.SSEEvent{Data: "hello"}); err != nil {
				return err
			}
			<-s.Done()
			return nil
		})
		returned <- err
		return err
	})
	r := dialRaw(t, startApp(t, app))
	r.send("GET /idle HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(r.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	var got []string
	for beats := 0; beats < 2; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, line)
		if line == ":\n" {
			beats++
		}
	}
	if strings.Join(got[:2], "") != "data: hello\n\n" {
		t.Fatalf("stream began %q", got)
	}
	r.c.Close()
	select {
	case err := <-returned:
		if err != nil {
			t.Fatalf("SSE returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the SSE handler did not end after the client left")
	}
}

// On an inline app SSE cannot stream: it says so before sending anything
// and leaves the response to the handler, over HTTP/1 and HTTP/2 alike (on
// HTTP/2 it used to detach into the worker pool an inline App has not: a
// handler panic and a reset stream).
func TestSSEInline(t *testing.T) {
	newApp := func() *gwist.App {
		app := gwist.New(gwist.WithInline(true), gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
		app.GET("/ev", func(c *gwist.Ctx) error {
			err := c.SSE(func(*gwist.SSE) error { return nil })
			if !errors.Is(err, gwist.ErrInlineStreaming) {
				return c.String(500, "SSE returned "+errString(err))
			}
			return c.String(409, "inline")
		})
		return app
	}
	endpoints := h2Endpoints(t, newApp)
	endpoints["HTTP/1"] = h2Endpoint{newClient(t), "http://" + startApp(t, newApp())}
	for name, ep := range endpoints {
		resp, body := get(t, ep.c, ep.base+"/ev")
		if resp.StatusCode != 409 || body != "inline" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Fatalf("%s: %d %q", name, resp.StatusCode, body)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
