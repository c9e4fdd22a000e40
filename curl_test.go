package gwist_test

import (
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
