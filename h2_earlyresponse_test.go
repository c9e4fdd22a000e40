package gwist_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gwist/gwist"
)

// An early final response (413 to a 10 MiB upload over the 8 MiB default
// limit) reaches curl 7.88 over HTTP/2 (h2c and TLS), with and without
// "Expect: 100-continue": the RST_STREAM NO_ERROR that asks curl to stop
// sending is written apart from the response's END_STREAM (in one read,
// curl shows no response at all).
func TestHTTP2EarlyResponseReachesCurl(t *testing.T) {
	curl, upload := curlAndUpload(t, 10<<20)
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.POST("/upload", func(c *gwist.Ctx) error { return c.String(200, "took it") })
	plain := "http://" + startApp(t, app)
	secure := "https://" + startTLS(t, app, serverTLSConfig(t))
	for _, tc := range [][]string{
		{"--http2-prior-knowledge", plain}, {"--http2", secure},
		{"--http2-prior-knowledge", plain, "-H", "Expect:"}, {"--http2", secure, "-H", "Expect:"},
	} {
		for range 3 {
			args := append([]string{"-sS", "-k", "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "--data-binary", "@" + upload,
				tc[0], tc[1] + "/upload"}, tc[2:]...)
			out, err := exec.Command(curl, args...).CombinedOutput()
			if s := strings.TrimSpace(string(out)); err != nil || s != "413 2" {
				t.Fatalf("curl %v: %v %q", tc, err, s)
			}
		}
	}
}
