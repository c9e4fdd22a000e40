package gwist_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

func TestMain(m *testing.M) {
	if run := testChildren[os.Getenv("GWIST_TEST_CHILD")]; run != nil {
		os.Exit(run())
	}
	// IgnoreCurrent: gnet starts its own package-level goroutine pool at init.
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

// testChildren are the modes in which a test re-runs this binary as a child
// process (GWIST_TEST_CHILD=name), for scenarios that change process-wide
// state such as resource limits.
var testChildren = map[string]func() int{}

// startApp starts app on a free loopback port and shuts it down (checking
// the shutdown succeeded) when the test ends. It returns "127.0.0.1:PORT".
func startApp(t *testing.T, app *gwist.App) string {
	t.Helper()
	return testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
}

func shutdownApp(t *testing.T, app *gwist.App) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := app.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// newClient returns an HTTP client whose idle connections are closed when
// the test ends, so no client goroutine outlives it.
func newClient(t *testing.T) *http.Client {
	return testkit.Client(t, &http.Transport{MaxIdleConnsPerHost: 16})
}

func get(t *testing.T, c *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp, string(b)
}

// expectLive checks that n GETs of url in a row, with cl, are all answered
// 200: a live client beside an attack.
func expectLive(t *testing.T, cl *http.Client, url string, n int) {
	t.Helper()
	for i := range n {
		resp, err := cl.Get(url)
		if err != nil {
			t.Fatalf("live GET #%d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("live GET #%d: %d", i, resp.StatusCode)
		}
	}
}

// rawConn is a raw TCP client for framing tests.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c := testkit.Dial(t, addr)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, c: c, br: bufio.NewReader(c)}
}

func (r *rawConn) send(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.c, s); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// readResponse reads one response (for a request of method) off the wire.
func (r *rawConn) readResponse(method string) (*http.Response, string) {
	r.t.Helper()
	resp, err := http.ReadResponse(r.br, &http.Request{Method: method})
	if err != nil {
		r.t.Fatalf("reading response: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		r.t.Fatalf("reading body: %v", err)
	}
	return resp, string(b)
}

// expectClosed checks the server closes the connection (EOF, or a reset)
// without sending anything more.
func (r *rawConn) expectClosed() {
	r.t.Helper()
	_ = r.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(r.br)
	if len(b) > 0 {
		r.t.Fatalf("expected close, got more bytes: %q", b)
	}
	if err != nil && !strings.Contains(err.Error(), "reset") {
		r.t.Fatalf("expected EOF, got %v", err)
	}
}

// discardLogger keeps expected panics and errors out of the test output.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// waitFor waits until cond holds, failing the test with what after
// timeout (testkit.WaitFor).
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, timeout, what, cond)
}
