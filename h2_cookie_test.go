package gwist_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/gwist/gwist"
)

// Go's HTTP/2 client splits a Cookie into crumbs, one field each (RFC 9113
// section 8.2.3 allows it); the server joins them with "; " before a
// handler sees them, as net/http does: c.Header("Cookie"), the Cookie
// helper, and a wrapped net/http handler's r.Header.Get("Cookie").
func TestHTTP2CookieCrumbsJoined(t *testing.T) {
	newApp := func() *gwist.App {
		app := h2App()
		app.GET("/cookie", func(c *gwist.Ctx) error {
			b, err := c.Cookie("b")
			if err != nil {
				return err
			}
			return c.String(200, c.Header("Cookie")+"|"+b.Value)
		})
		app.GET("/wrapped", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(r.Header.Get("Cookie")))
		}))
		return app
	}
	for name, tc := range h2Endpoints(t, newApp) {
		t.Run(name, func(t *testing.T) {
			for path, want := range map[string]string{"/cookie": "a=1; b=2; c=3|2", "/wrapped": "a=1; b=2; c=3"} {
				req, _ := http.NewRequest("GET", tc.base+path, nil)
				req.Header.Set("Cookie", "a=1; b=2; c=3")
				resp, err := tc.c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.ProtoMajor != 2 || string(body) != want {
					t.Fatalf("%s: %s %q, want %q", path, resp.Proto, body, want)
				}
			}
		})
	}
}
