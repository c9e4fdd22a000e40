package interop

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	chimw "github.com/go-chi/chi/v5/middleware"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// chi's middleware.Timeout through gwist.WrapMiddleware: its 504, written
// after next once the deadline passed, reaches the client, whether the
// gwist handler returned the context's error or returned without writing;
// and a wrapped net/http handler under it sees the deadline too.
func TestChiTimeoutAnswers(t *testing.T) {
	app := gwist.New(gwist.WithLogger(slog.New(slog.DiscardHandler)))
	app.Use(gwist.WrapMiddleware(chimw.Timeout(50 * time.Millisecond)))
	app.GET("/err", func(c *gwist.Ctx) error {
		<-c.Context().Done()
		return c.Context().Err()
	})
	app.GET("/silent", func(c *gwist.Ctx) error {
		<-c.Context().Done()
		return nil
	})
	app.GET("/wrapped", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	app.GET("/fast", func(c *gwist.Ctx) error { return c.String(200, "fast") })
	addr := testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
	client := testkit.Client(t, testkit.H1(nil))
	for path, want := range map[string]int{"/err": 504, "/silent": 504, "/wrapped": 504, "/fast": 200} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		if resp.StatusCode != want {
			t.Errorf("%s: %d %q, want %d", path, resp.StatusCode, body, want)
		}
	}
}
