package gwist_test

import (
	"os/exec"
	"strings"
	"testing"
)

// curl --http2 on a plaintext URL asks for `Upgrade: h2c`: with HTTP/2 on,
// it gets 101 and its request is answered over HTTP/2 on stream 1, and a
// second request (curl --http2-prior-knowledge) uses HTTP/2 from the start;
// with HTTP/2 off the upgrade is ignored and HTTP/1.1 answers.
func TestH2cUpgradeCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	base := "http://" + startApp(t, h2App())
	out, err := exec.Command(curl, "-sS", "-v", "--http2", base+"/").CombinedOutput()
	if err != nil {
		t.Fatalf("curl: %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "101 Switching Protocols") || !strings.Contains(s, "< HTTP/2 200") ||
		!strings.HasSuffix(strings.TrimSpace(s), "hello HTTP/2.0") {
		t.Fatalf("upgrade:\n%s", s)
	}
	out, err = exec.Command(curl, "-sS", "-i", "--http2-prior-knowledge", base+"/").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "HTTP/2 200") || !strings.Contains(string(out), "hello HTTP/2.0") {
		t.Fatalf("prior knowledge: %v\n%s", err, out)
	}
	// A request with a body is not upgraded: HTTP/1.1 answers it.
	out, err = exec.Command(curl, "-sS", "-i", "--http2", "--data-binary", "abc", base+"/sum").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "HTTP/1.1 200") || !strings.Contains(string(out), "3 ") {
		t.Fatalf("POST with --http2: %v\n%s", err, out)
	}

	off := startApp(t, helloApp())
	out, err = exec.Command(curl, "-sS", "-i", "--http2", "http://"+off+"/").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "HTTP/1.1 200") {
		t.Fatalf("upgrade with HTTP/2 off: %v\n%s", err, out)
	}
}

// With HTTP/2 on, a plaintext connection whose first line is neither an
// HTTP/1 request line (it names no HTTP version and does not start with a
// method, a space and a request target) nor the HTTP/2 preface is closed
// without an answer (HTTP/2 requires it for a bad preface, and h2spec
// checks it); a malformed HTTP/1 request still gets its 400, a request
// line without a version too, and with HTTP/2 off nothing changes.
func TestFirstLineNeitherProtocol(t *testing.T) {
	on := startApp(t, h2App())
	r := dialRaw(t, on)
	r.send("INVALID CONNECTION PREFACE\r\n\r\n")
	r.expectClosed()
	for _, bad := range []string{"GET / HTTP/1.1\r\nBad Header\r\n\r\n", "GET / http/1.1\r\n\r\n", "G@T / HTTP/1.1\r\n\r\n",
		"GET /\r\n\r\n", "GET /index.html HTTP\r\n\r\n", "POST * junk\r\n\r\n"} {
		r = dialRaw(t, on)
		r.send(bad)
		if resp, _ := r.readResponse("GET"); resp.StatusCode != 400 {
			t.Fatalf("malformed HTTP/1 request %q: %d", bad, resp.StatusCode)
		}
	}
	off := startApp(t, helloApp())
	r = dialRaw(t, off)
	r.send("INVALID CONNECTION PREFACE\r\n\r\n")
	if resp, _ := r.readResponse("GET"); resp.StatusCode != 400 {
		t.Fatalf("HTTP/2 off: %d", resp.StatusCode)
	}
}
