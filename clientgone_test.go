package gwist_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// recorder is a slog.Handler that keeps every record.
type recorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.recs = append(r.recs, rec.Clone())
	r.mu.Unlock()
	return nil
}

// lines returns the records at or above level whose message contains sub.
func (r *recorder) lines(level slog.Level, sub string) []slog.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []slog.Record
	for _, rec := range r.recs {
		if rec.Level >= level && strings.Contains(rec.Message, sub) {
			out = append(out, rec)
		}
	}
	return out
}

// N clients that leave while their handlers run make each handler return
// context.Canceled: the errors are all counted, and logged in at most two
// lines (one per second: the run may straddle a second), none at ERROR.
func TestClientGoneErrorsAreCountedNotFlooded(t *testing.T) {
	const n = 50
	rec := &recorder{}
	started := make(chan struct{}, n)
	app := gwist.New(gwist.WithLogger(slog.New(rec)))
	app.GET("/wait", func(c *gwist.Ctx) error {
		started <- struct{}{}
		<-c.Context().Done()
		return c.Context().Err()
	})
	app.GET("/fail", func(c *gwist.Ctx) error { return errors.New("real failure") })
	addr := startApp(t, app)

	conns := make([]*rawConn, n)
	for i := range conns {
		conns[i] = dialRaw(t, addr)
		conns[i].send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	for range n {
		<-started // every handler is running before any client leaves
	}
	for _, r := range conns {
		r.c.Close()
	}
	testkit.Eventually(5*time.Second, func() bool { return app.Stats().ClientGoneErrors >= n })
	if errs := rec.lines(slog.LevelError, ""); len(errs) != 0 {
		t.Fatalf("%d ERROR lines for clients that left, first: %q", len(errs), errs[0].Message)
	}
	if got := app.Stats().ClientGoneErrors; got != n {
		t.Fatalf("ClientGoneErrors = %d, want %d", got, n)
	}
	gone := rec.lines(slog.LevelInfo, "client went away")
	if len(gone) < 1 || len(gone) > 2 {
		t.Fatalf("%d log lines for %d clients that left, want 1 or 2", len(gone), n)
	}

	// A handler error with its client still there is still an ERROR line.
	if resp, _ := get(t, newClient(t), "http://"+addr+"/fail"); resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if errs := rec.lines(slog.LevelError, "handler error"); len(errs) != 1 {
		t.Fatalf("%d ERROR lines for a real handler error, want 1", len(errs))
	}
	if got := app.Stats().ClientGoneErrors; got != n {
		t.Fatalf("a real error was counted as a client gone: %d", got)
	}
}
