package middleware_test

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

func TestMain(m *testing.M) {
	// IgnoreCurrent: gnet starts its own package-level goroutine pool at init.
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

// startApp starts app on a free loopback port, shut down when the test
// ends, and returns its base URL.
func startApp(t *testing.T, app *gwist.App) string {
	t.Helper()
	return "http://" + testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
}

// newClient is an HTTP client that does not follow redirects nor
// decompress, closed when the test ends.
func newClient(t *testing.T) *http.Client { return testkit.Client(t, &http.Transport{}) }

// do sends a request and returns the response with its body read.
func do(t *testing.T, c *http.Client, method, url string, hdr map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp, b
}

// logBuffer collects JSON log lines from several goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(l, nil)) }

func newRequest(method, url string) (*http.Request, error) { return http.NewRequest(method, url, nil) }

func readAll(r *http.Response) ([]byte, error) {
	defer r.Body.Close()
	return io.ReadAll(r.Body)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
