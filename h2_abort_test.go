package gwist_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gwist/gwist"
)

// A handler that fails after part of its response went out (an error
// returned mid-stream, a wrapped net/http handler's
// panic(http.ErrAbortHandler)) ends its HTTP/2 stream with RST_STREAM
// (INTERNAL_ERROR), never END_STREAM: Go's client sees a stream error, not
// a complete body (a cache could store a truncated one). Over HTTP/1.1 the
// connection is cut, as documented. net/http does the same.
func TestHTTP2FailedStreamIsReset(t *testing.T) {
	newApp := func() *gwist.App {
		app := h2App()
		app.GET("/fail", func(c *gwist.Ctx) error {
			_, _ = c.Write([]byte("part of the body\n"))
			if err := c.Flush(); err != nil {
				return err
			}
			return errors.New("the handler failed mid-stream")
		})
		app.GET("/abort", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "part of the body\n")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}))
		return app
	}
	for name, tc := range h2Endpoints(t, newApp) {
		for _, path := range []string{"/fail", "/abort"} {
			t.Run(name+path, func(t *testing.T) {
				resp, err := tc.c.Get(tc.base + path)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.ProtoMajor != 2 || err == nil || !strings.Contains(err.Error(), "INTERNAL_ERROR") {
					t.Fatalf("%s: body %q, read error %v; want a stream error INTERNAL_ERROR", resp.Proto, body, err)
				}
			})
		}
	}
}
