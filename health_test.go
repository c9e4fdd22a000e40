package gwist_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// healthApp serves /livez, /readyz and /slow (which waits for release).
func healthApp(release <-chan struct{}, opts ...gwist.Option) *gwist.App {
	app := gwist.New(append([]gwist.Option{gwist.WithLogger(discardLogger())}, opts...)...)
	app.GET("/livez", gwist.Livez)
	app.GET("/readyz", app.Readyz)
	app.GET("/slow", func(c *gwist.Ctx) error {
		<-release
		return c.String(200, "slow done")
	})
	return app
}

// Readiness turns false the moment Shutdown begins, while the listener
// still accepts and serves (WithDrainDelay), so a balancer polling /readyz
// takes the server out before any connection is refused; liveness stays
// true; once the delay is over the listener closes and the in-flight
// request still finishes.
func TestReadyzTurnsFalseBeforeListenersClose(t *testing.T) {
	release := make(chan struct{})
	const delay = 400 * time.Millisecond
	app := healthApp(release, gwist.WithDrainDelay(delay))
	bound, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + bound.String()
	c := newClient(t)
	if resp, body := get(t, c, base+"/readyz"); resp.StatusCode != 200 || body != "ok\n" || !app.Ready() {
		t.Fatalf("before Shutdown: %d %q ready=%v", resp.StatusCode, body, app.Ready())
	}

	inflight := make(chan string, 1)
	go func() {
		resp, err := newClient(t).Get(base + "/slow")
		if err != nil {
			inflight <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		inflight <- resp.Status + " " + string(b)
	}()
	waitFor(t, 2*time.Second, "/slow in flight", func() bool { return app.Stats().Handlers == 1 })

	begun := time.Now()
	shut := make(chan error, 1)
	go func() { shut <- app.Shutdown(context.Background()) }()
	waitFor(t, time.Second, "Ready() false", func() bool { return !app.Ready() })
	// New connections during the delay are accepted and served: readiness
	// says 503, liveness 200.
	fresh := newClient(t)
	if resp, body := get(t, fresh, base+"/readyz"); resp.StatusCode != 503 || body != "draining\n" {
		t.Fatalf("/readyz during the drain: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, newClient(t), base+"/livez"); resp.StatusCode != 200 {
		t.Fatalf("/livez during the drain: %d", resp.StatusCode)
	}
	if since := time.Since(begun); since >= delay {
		t.Fatalf("checks took %v, past the drain delay: the test proves nothing", since)
	}
	waitRefused(t, bound.String())
	if since := time.Since(begun); since < delay {
		t.Fatalf("listener closed %v after Shutdown began, before the %v drain delay", since, delay)
	}
	close(release)
	if got := <-inflight; got != "200 OK slow done" {
		t.Fatalf("in-flight request: %q", got)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// A failing readiness check makes /readyz 503 with its name and error; it
// passes again once the check does. The check gets a context with a
// deadline.
func TestReadinessCheck(t *testing.T) {
	var failing atomic.Bool
	failing.Store(true)
	app := healthApp(nil)
	app.AddReadinessCheck("database", func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			return errors.New("no deadline")
		}
		if failing.Load() {
			return errors.New("connection refused")
		}
		return nil
	})
	base := "http://" + startApp(t, app)
	c := newClient(t)
	if resp, body := get(t, c, base+"/readyz"); resp.StatusCode != 503 || body != "not ready: database: connection refused\n" {
		t.Fatalf("failing check: %d %q", resp.StatusCode, body)
	}
	failing.Store(false)
	if resp, body := get(t, c, base+"/readyz"); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("passing check: %d %q", resp.StatusCode, body)
	}
	if resp, body := get(t, c, base+"/livez"); resp.StatusCode != 200 || body != "ok\n" ||
		resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("/livez: %d %q %v", resp.StatusCode, body, resp.Header)
	}
}

// During a drain an HTTP/2 client gets a GOAWAY: its stream in flight
// finishes with 200, and its next request goes to a new connection, which
// is refused once the listener has closed.
func TestShutdownSendsGoAwayAndFinishesStreams(t *testing.T) {
	for _, name := range []string{"TLS", "h2c"} {
		t.Run(name, func(t *testing.T) {
			app := h2App()
			app.GET("/hold", func(c *gwist.Ctx) error {
				// Still in flight when the drain sends the GOAWAY.
				testkit.Eventually(5*time.Second, func() bool { return app.Stats().HTTP2.GoAwaySent["NO_ERROR"] > 0 })
				return c.String(200, "held")
			})
			c, base := h2cClient(t), ""
			if name == "TLS" {
				c, base = h2TLSClient(t), "https://"+startTLS(t, app, serverTLSConfig(t))
			} else {
				base = "http://" + startApp(t, app)
			}
			if resp, _ := get(t, c, base+"/"); resp.ProtoMajor != 2 {
				t.Fatalf("not HTTP/2: %s", resp.Proto)
			}
			done := make(chan string, 1)
			go func() {
				resp, err := c.Get(base + "/hold")
				if err != nil {
					done <- err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				done <- resp.Proto + " " + resp.Status + " " + string(b)
			}()
			waitFor(t, 2*time.Second, "/hold in flight", func() bool { return app.Stats().Handlers == 1 })
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := app.Shutdown(ctx); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			if got := <-done; got != "HTTP/2.0 200 OK held" {
				t.Fatalf("stream in flight: %q", got)
			}
			if st := app.Stats().HTTP2; st.GoAwaySent["NO_ERROR"] == 0 {
				t.Fatalf("no GOAWAY NO_ERROR sent: %+v", st.GoAwaySent)
			}
			_, err := c.Get(base + "/")
			var op *net.OpError
			if err == nil || !(errors.As(err, &op) || strings.Contains(err.Error(), "refused")) {
				t.Fatalf("request after the drain: %v; want the connection refused", err)
			}
		})
	}
}
