package gwist_test

import (
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// curl's "Expect: 100-continue" over HTTP/2 (h2c and TLS; RFC 9110 section
// 10.1.1): the server answers 100 (a HEADERS with :status 100) at once on
// a buffered-body route (the engine reads the body), when the handler
// first reads on a streamed-body route, and the final status at once, with
// no 100, to a streamed-body handler that answers without reading; curl
// never waits out its expect100-timeout (set to 5 s).
func TestHTTP2ExpectContinueCurl(t *testing.T) {
	curl, upload := curlAndUpload(t, 100<<10)
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.POST("/buffered", func(c *gwist.Ctx) error { return c.String(200, "got "+strconv.Itoa(len(c.Body()))) })
	app.POST("/refuse", func(c *gwist.Ctx) error { return c.String(403, "no") })
	s := app.StreamBody(0)
	s.POST("/streamed", func(c *gwist.Ctx) error {
		n, err := io.Copy(io.Discard, c.BodyReader())
		if err != nil {
			return err
		}
		return c.String(200, "got "+strconv.FormatInt(n, 10))
	})
	s.POST("/srefuse", func(c *gwist.Ctx) error { return c.String(403, "no") })
	plain := "http://" + startApp(t, app)
	secure := "https://" + startTLS(t, app, serverTLSConfig(t))
	for _, base := range []string{plain, secure} {
		proto := "--http2-prior-knowledge"
		if strings.HasPrefix(base, "https") {
			proto = "--http2"
		}
		for path, want := range map[string]string{"/buffered": "got 102400", "/streamed": "got 102400", "/refuse": "no", "/srefuse": "no"} {
			start := time.Now()
			out, err := exec.Command(curl, "-sS", "-v", "-k", proto, "--expect100-timeout", "5", "-H", "Expect: 100-continue",
				"--data-binary", "@"+upload, base+path).CombinedOutput()
			took := time.Since(start)
			s := string(out)
			interim := strings.Contains(s, "< HTTP/2 100")
			if err != nil || !strings.HasSuffix(s, want) || took > 2*time.Second || interim != (path != "/srefuse") {
				t.Fatalf("%s%s (%s): took %v, 100 seen %v: %v\n%s", base, path, proto, took, interim, err, s)
			}
		}
	}
}
