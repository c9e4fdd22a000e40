package cref

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/certs"
)

func TestRender(t *testing.T) {
	for _, s := range All {
		b, err := s.Render(Config{Dir: "/tmp/x", PlainAddr: "127.0.0.1:1", TLSAddr: "127.0.0.1:2", CertFile: "/c.pem",
			KeyFile: "/k.pem", StaticDir: "/www", Workers: 2})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		for _, want := range []string{"Hello, World!", `{"message":"Hello, World!"}`, "/c.pem", "/www", "2"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s config lacks %q:\n%s", s.Name, want, b)
			}
		}
	}
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestStartAndAnswer starts each server found on PATH and checks its bodies.
func TestStartAndAnswer(t *testing.T) {
	for _, s := range All {
		t.Run(s.Name, func(t *testing.T) {
			if _, err := exec.LookPath(s.Name); err != nil {
				t.Skipf("%s not found (apt-get install -y %s): skipping", s.Name, s.Package)
			}
			dir := t.TempDir()
			www := filepath.Join(dir, "www")
			os.MkdirAll(www, 0o755)
			os.WriteFile(filepath.Join(www, "f.txt"), []byte("static!"), 0o644)
			cert, key, err := certs.WriteFiles(dir)
			if err != nil {
				t.Fatal(err)
			}
			c := Config{Dir: filepath.Join(dir, "run"), PlainAddr: freePort(t), TLSAddr: freePort(t), CertFile: cert,
				KeyFile: key, StaticDir: www, Workers: 1, MaxConns: 256}
			argv, err := s.Prepare(c)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			var log strings.Builder
			cmd.Stdout, cmd.Stderr = &log, &log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cancel(); cmd.Wait() }()
			client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
			get := func(url string) (string, string) {
				var lastErr error
				for range 100 {
					r, err := client.Get(url)
					if err == nil {
						b, _ := io.ReadAll(r.Body)
						r.Body.Close()
						return r.Header.Get("Content-Type"), string(b)
					}
					lastErr = err
					time.Sleep(50 * time.Millisecond)
				}
				t.Fatalf("GET %s: %v; server said: %s", url, lastErr, log.String())
				return "", ""
			}
			for _, base := range []string{"http://" + c.PlainAddr, "https://" + c.TLSAddr} {
				if ct, b := get(base + "/"); ct != "text/plain; charset=utf-8" || b != "Hello, World!" {
					t.Errorf("%s/: %q %q", base, ct, b)
				}
				if ct, b := get(base + "/json"); ct != "application/json" || b != "{\"message\":\"Hello, World!\"}\n" {
					t.Errorf("%s/json: %q %q", base, ct, b)
				}
				if _, b := get(base + "/static/f.txt"); b != "static!" {
					t.Errorf("%s/static/f.txt: %q", base, b)
				}
			}
		})
	}
}
