package gwist_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gwist/gwist"
)

// jsonValues are what /json/:i answers with: escaping, numbers, nesting, a
// document past the encoder pool's buffer bound, and one json cannot
// encode.
var jsonValues = []any{
	map[string]any{"html": "<a href=\"x\">&</a>", "u": "\u2028é", "n": 1.5e300, "z": []int(nil)},
	struct {
		ID   int      `json:"id"`
		Tags []string `json:"tags,omitempty"`
		Skip string   `json:"-"`
	}{ID: 7, Tags: []string{"a", "b"}, Skip: "no"},
	strings.Repeat("x", 100<<10),
	"short",
	map[string]any{"bad": make(chan int)},
}

// Ctx.JSON answers with exactly json.Marshal's bytes and a newline, with
// pooled encoders that carry nothing from one response to the next (a
// large document, a failed encoding, concurrent handlers), and a value
// json cannot encode is an error (500), not a partial body.
func TestJSONMatchesMarshal(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/json/:i", func(c *gwist.Ctx) error {
		i := int(c.Param("i")[0] - '0')
		return c.JSON(200, jsonValues[i])
	})
	base := "http://" + startApp(t, app)
	client := &http.Client{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 20 {
				for i, v := range jsonValues {
					resp, body := get(t, client, base+"/json/"+string(rune('0'+i)))
					want, err := json.Marshal(v)
					if err != nil {
						if resp.StatusCode != 500 || strings.Contains(body, "bad") {
							t.Errorf("round %d, value %d: %d %q, want a 500 for %v", round, i, resp.StatusCode, body, err)
						}
						continue
					}
					if resp.StatusCode != 200 || body != string(want)+"\n" || resp.Header.Get("Content-Type") != "application/json" {
						t.Errorf("round %d, value %d: %d %s %.80q, want %.80q", round, i, resp.StatusCode,
							resp.Header.Get("Content-Type"), body, want)
					}
				}
			}
		}()
	}
	wg.Wait()
}
