package gwist_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gwist/gwist"
)

// curl is a second, independent client: keep-alive reuse, a POST body, HEAD.
func TestCurlClient(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	app := gwist.New()
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	app.POST("/echo", func(c *gwist.Ctx) error { return c.Bytes(200, c.Header("Content-Type"), c.Body()) })
	base := "http://" + startApp(t, app)
	out, err := exec.Command(curl, "-sS", "-v", base+"/", base+"/").CombinedOutput()
	if err != nil {
		t.Fatalf("curl: %v\n%s", err, out)
	}
	s := string(out)
	if strings.Count(s, "Hello, World!") != 2 || !strings.Contains(s, "Re-using existing connection") &&
		!strings.Contains(s, "Reusing existing") {
		t.Fatalf("curl keep-alive output:\n%s", s)
	}
	out, err = exec.Command(curl, "-sS", "-H", "Content-Type: text/x-test", "--data-binary", "ping", base+"/echo").CombinedOutput()
	if err != nil || string(out) != "ping" {
		t.Fatalf("curl POST: %v %q", err, out)
	}
	out, err = exec.Command(curl, "-sS", "-I", base+"/").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Content-Length: 13") {
		t.Fatalf("curl HEAD: %v %q", err, out)
	}
}

// curl uploads to a streamed-body route: -T (PUT, with a Content-Length
// and "Expect: 100-continue") and --data-binary @file (POST), each with a
// length and chunked. The server's answer carries the sha256 it computed.
func TestCurlStreamedUpload(t *testing.T) {
	const size = 16 << 20
	curl, upload := curlAndUpload(t, size)
	app := gwist.New()
	s := app.StreamBody(0)
	s.PUT("/upload", hashUpload)
	s.POST("/upload", hashUpload)
	url := "http://" + startApp(t, app) + "/upload"
	want := fmt.Sprintf(`{"bytes":%d,"sha256":"%s"}`, size, patternSum(size))
	for _, args := range [][]string{
		{"-T", upload},
		{"-T", upload, "-H", "Transfer-Encoding: chunked"},
		{"--data-binary", "@" + upload},
		{"--data-binary", "@" + upload, "-H", "Transfer-Encoding: chunked"},
	} {
		out, err := exec.Command(curl, append([]string{"-sS", "-v", url}, args...)...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("curl %v: %v\n%s", args, err, out)
		}
		if args[0] == "-T" && !strings.Contains(string(out), "HTTP/1.1 100 Continue") {
			t.Fatalf("curl %v: no 100 Continue:\n%s", args, out)
		}
	}
}

// curlAndUpload returns curl's path (skipping the test without it) and a
// file of size patterned bytes (see patternReader) to upload.
func curlAndUpload(t *testing.T, size int64) (curl, file string) {
	t.Helper()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	f, err := os.CreateTemp(t.TempDir(), "upload")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(f, &patternReader{n: size}); err != nil {
		t.Fatal(err)
	}
	return curl, f.Name()
}
