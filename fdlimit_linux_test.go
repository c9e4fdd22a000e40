package gwist_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// The descriptor-exhaustion scenario of the hardening issue: a server
// process under `ulimit -n 256` (soft = hard) and 400 client connections.
// It runs in a child process (this test binary re-run with
// GWIST_TEST_CHILD=fdlimit, see TestMain), so the limit touches nothing else.

const fdLimitForChild = 256

func init() { testChildren["fdlimit"] = runFDLimitChild }

func TestListenerSurvivesDescriptorExhaustion(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxConns int // 0: the default derived from RLIMIT_NOFILE
		emfile   bool
		hog      bool // the application itself holds every free descriptor
	}{
		// WithMaxConns far above the descriptor limit: accept itself meets
		// EMFILE, which ended gnet's loop and took the port down for good.
		{"accept-hits-EMFILE", 100000, true, false},
		// The default keeps the process below the limit: the surplus is
		// refused before the descriptor table fills.
		{"default-max-conns", 0, false, false},
		// The application's own files take every descriptor: accept fails
		// with EMFILE whatever the connection count.
		{"application-holds-every-descriptor", 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			child := startFDLimitChild(t, tc.maxConns)
			plain, tlsAddr := child.plain, child.tls

			conns := make([]net.Conn, 0, 400)
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			if tc.hog {
				first, err := net.Dial("tcp", plain)
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, first)
				if got := rawGet(t, first); got != "200" {
					t.Fatalf("first request: %s", got)
				}
				child.toggleHog(t, "HOGGED")
			}
			for range 400 {
				c, err := net.DialTimeout("tcp", plain, 2*time.Second)
				if err != nil {
					continue // the backlog may overflow: refused by the kernel
				}
				conns = append(conns, c)
			}
			// The first connection was accepted before the table filled;
			// it is still served while the pressure lasts.
			if got := rawGet(t, conns[0]); got != "200" {
				t.Fatalf("request on an accepted connection under pressure: %s", got)
			}
			// A new connection is refused or closed at once, not left hanging.
			if c, err := net.DialTimeout("tcp", plain, 2*time.Second); err == nil {
				start := time.Now()
				got := rawGet(t, c)
				c.Close()
				if got == "200" && tc.emfile {
					t.Fatalf("a connection beyond the descriptor limit was served")
				}
				if d := time.Since(start); d > 3*time.Second {
					t.Fatalf("connection beyond the limit answered after %v (%s)", d, got)
				}
			}
			for _, c := range conns {
				c.Close()
			}
			conns = conns[:0]
			if tc.hog {
				child.toggleHog(t, "RELEASED")
			}

			// Service resumes by itself on both listeners.
			waitFor(t, 10*time.Second, "GET / over plaintext after the pressure", func() bool {
				return httpGetOK(plain, nil)
			})
			waitFor(t, 10*time.Second, "GET / over TLS after the pressure", func() bool {
				return httpGetOK(tlsAddr, &tls.Config{InsecureSkipVerify: true})
			})

			stats, logLines, elapsed := child.stop(t)
			if tc.emfile && stats["accept_errors"] == 0 {
				t.Errorf("accept never failed: the test did not reach EMFILE (stats %v)", stats)
			}
			if !tc.emfile && stats["accept_errors"] != 0 {
				t.Errorf("accept failed %d times although the default limit keeps below RLIMIT_NOFILE", stats["accept_errors"])
			}
			if stats["refused"] == 0 {
				t.Errorf("no connection was refused (stats %v)", stats)
			}
			// At most one accept-error line per second (plus one).
			if limit := int(elapsed/time.Second) + 2; logLines > limit {
				t.Errorf("%d accept-error log lines in %v; want at most %d", logLines, elapsed, limit)
			}
		})
	}
}

type fdLimitChild struct {
	cmd       *exec.Cmd
	plain     string
	tls       string
	stdout    *bufio.Scanner
	stderr    *strings.Builder
	startedAt time.Time
}

func startFDLimitChild(t *testing.T, maxConns int) *fdLimitChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GWIST_TEST_CHILD=fdlimit",
		"GWIST_TEST_MAXCONNS="+strconv.Itoa(maxConns))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = &lockedWriter{w: stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := &fdLimitChild{cmd: cmd, stdout: bufio.NewScanner(out), stderr: stderr, startedAt: time.Now()}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	if !ch.stdout.Scan() {
		t.Fatalf("child printed no addresses; stderr: %s", stderr)
	}
	f := strings.Fields(ch.stdout.Text())
	if len(f) != 3 || f[0] != "ADDRS" {
		t.Fatalf("child said %q", ch.stdout.Text())
	}
	ch.plain, ch.tls = f[1], f[2]
	return ch
}

// toggleHog makes the child take every free descriptor, or give them back,
// and waits until it says it did.
func (ch *fdLimitChild) toggleHog(t *testing.T, want string) {
	t.Helper()
	_ = ch.cmd.Process.Signal(syscall.SIGUSR1)
	if !ch.stdout.Scan() || !strings.HasPrefix(ch.stdout.Text(), want) {
		t.Fatalf("child said %q, want %s; stderr: %s", ch.stdout.Text(), want, ch.stderr)
	}
}

// stop sends SIGTERM and returns the child's counters, how many
// accept-error lines it logged, and how long it ran.
func (ch *fdLimitChild) stop(t *testing.T) (map[string]int, int, time.Duration) {
	t.Helper()
	elapsed := time.Since(ch.startedAt)
	_ = ch.cmd.Process.Signal(syscall.SIGTERM)
	stats := map[string]int{}
	for ch.stdout.Scan() {
		if f := strings.Fields(ch.stdout.Text()); len(f) > 0 && f[0] == "STATS" {
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				stats[k], _ = strconv.Atoi(v)
			}
		}
	}
	if err := ch.cmd.Wait(); err != nil {
		t.Fatalf("child exit: %v; stderr:\n%s", err, ch.stderr)
	}
	return stats, strings.Count(ch.stderr.String(), "level=WARN"), elapsed
}

// runFDLimitChild is the child's side: serve plaintext and TLS under the
// lowered limit until SIGTERM, then print the counters.
func runFDLimitChild() int {
	rl := syscall.Rlimit{Cur: fdLimitForChild, Max: fdLimitForChild}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		return 2
	}
	maxConns, _ := strconv.Atoi(os.Getenv("GWIST_TEST_MAXCONNS"))
	app := gwist.New(gwist.WithMaxConns(maxConns), gwist.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	plain, err := app.Start("127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	p := getPKI(childTB{})
	tlsAddr, err := app.StartTLS("127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{p.serverA}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGUSR1)
	fmt.Printf("ADDRS %s %s\n", plain, tlsAddr)
	var hog []*os.File
	for s := range sig {
		if s == syscall.SIGTERM {
			break
		}
		if hog == nil {
			for {
				f, err := os.Open(os.DevNull)
				if err != nil {
					break
				}
				hog = append(hog, f)
			}
			fmt.Printf("HOGGED %d\n", len(hog))
		} else {
			for _, f := range hog {
				f.Close()
			}
			hog = nil
			fmt.Println("RELEASED")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := app.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "shutdown:", err)
		return 1
	}
	st := app.Stats()
	fmt.Printf("STATS refused=%d accept_errors=%d max_conns=%d\n", st.RefusedConns, st.AcceptErrors, st.MaxConns)
	return 0
}

// childTB lets the child use the test PKI helpers, which only call Fatal.
type childTB struct{ testing.TB }

func (childTB) Fatal(args ...any) { panic(fmt.Sprint(args...)) }

// rawGet sends GET / on c and returns the status code, or what went wrong.
func rawGet(t *testing.T, c net.Conn) string {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return "write: " + err.Error()
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "read: " + err.Error()
	}
	if f := strings.Fields(line); len(f) > 1 {
		return f[1]
	}
	return line
}

// httpGetOK reports whether GET / on addr (over TLS when cfg is set)
// answers 200 on a fresh connection.
func httpGetOK(addr string, cfg *tls.Config) bool {
	var c net.Conn
	var err error
	d := &net.Dialer{Timeout: time.Second}
	if cfg != nil {
		c, err = tls.DialWithDialer(d, "tcp", addr, cfg)
	} else {
		c, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return false
	}
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.HasPrefix(line, "HTTP/1.1 200 ")
}

// lockedWriter serialises writes from the child's stderr copier with reads
// by the test.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
