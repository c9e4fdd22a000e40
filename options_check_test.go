package gwist_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// Options refuse values that mean nothing; Start (and StartTLS) fails
// naming each one, and nothing listens.
func TestOptionsRefuseMeaninglessValues(t *testing.T) {
	app := gwist.New(gwist.WithWorkers(-5), gwist.WithLoops(-1), gwist.WithIdleTimeout(0),
		gwist.WithMaxBodyBytes(-1), gwist.WithSSEHeartbeat(0), gwist.WithDrainDelay(-time.Second),
		gwist.WithTLSHandshakeTimeout(-time.Second), gwist.WithMaxInlineFileBytes(-2))
	_, err := app.Start("127.0.0.1:0")
	if !errors.Is(err, gwist.ErrInvalidOption) {
		t.Fatalf("Start: %v, want ErrInvalidOption", err)
	}
	for _, want := range []string{"WithWorkers(-5)", "WithLoops(-1)", "WithIdleTimeout(0s)", "WithMaxBodyBytes(-1)",
		"WithSSEHeartbeat(0s)", "WithDrainDelay(-1s)", "WithTLSHandshakeTimeout(-1s)", "WithMaxInlineFileBytes(-2)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start's error does not name %s:\n%v", want, err)
		}
	}
	if _, err := app.StartTLS("127.0.0.1:0", nil); !errors.Is(err, gwist.ErrInvalidOption) {
		t.Errorf("StartTLS: %v, want ErrInvalidOption", err)
	}
	if len(app.Addrs()) != 0 {
		t.Fatalf("listening on %v after a refused Start", app.Addrs())
	}

	// Under ServeHTTP every request is a 500 that names the option.
	srv := httptest.NewServer(app)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(b), "WithWorkers(-5)") {
		t.Fatalf("ServeHTTP: %d %q", resp.StatusCode, b)
	}
}

// Zero keeps meaning "the default" for sizes and counts (examples/hello's
// flags pass 0), and a negative heartbeat still turns heartbeats off.
func TestOptionsZeroMeansDefault(t *testing.T) {
	app := gwist.New(gwist.WithWorkers(0), gwist.WithLoops(0), gwist.WithMaxConns(0), gwist.WithMaxBodyBytes(0),
		gwist.WithSSEHeartbeat(-1), gwist.WithDrainDelay(0))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	addr := startApp(t, app)
	if resp, body := get(t, newClient(t), "http://"+addr+"/"); resp.StatusCode != 200 || body != "ok" {
		t.Fatalf("GET: %d %q", resp.StatusCode, body)
	}
}
