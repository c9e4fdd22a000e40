package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// GET /metrics counts the example's requests by route; -metrics=false
// leaves the route out.
func TestMetricsRoute(t *testing.T) {
	for _, on := range []bool{true, false} {
		*metricsOn = on
		app := gwist.New()
		routes(app)
		metricsRoute(app)
		addr, err := app.Start("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := "http://" + addr.String()
		fetch(t, base+"/users/7")
		resp, body := fetch(t, base+"/metrics")
		want := `gwist_http_requests_total{method="GET",protocol="h1",route="/users/:id",status="2xx",tls="false"} 1`
		if on && (resp.StatusCode != 200 || !strings.Contains(body, want)) {
			t.Errorf("-metrics=true: %d, no %s in:\n%s", resp.StatusCode, want, body)
		}
		if !on && resp.StatusCode != 404 {
			t.Errorf("-metrics=false: /metrics answered %d", resp.StatusCode)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := app.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		cancel()
	}
	*metricsOn = true
}
