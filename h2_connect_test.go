package gwist_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwist/gwist"
)

// Node's http2 client sends CONNECTs that never end their streams (RFC
// 9113 section 8.5): a plain CONNECT is answered 501 at once (as HTTP/1.1
// answers it; the driver does not wait for END_STREAM), and an extended
// CONNECT (RFC 8441) to a route that is not a WebSocket gets 405, never
// the GET handler's 2xx, which would tell the client its tunnel is open.
func TestHTTP2ConnectNodeClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "the GET route's body") })
	app.GET("/flush", func(c *gwist.Ctx) error {
		c.Write([]byte("streamed"))
		return c.Flush()
	})
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{})) // makes the server offer extended CONNECT
	base := "http://" + startApp(t, app)
	script, _ := filepath.Abs("testdata/h2connect.js")
	for path, want := range map[string]string{"/": "405", "/flush": "500", "/ws": "200"} {
		out, err := exec.Command(node, script, base, path).CombinedOutput()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], "501 ") || !strings.HasPrefix(lines[1], want+" ") {
			t.Fatalf("%s: %v\n%s", path, err, out)
		}
	}
}
