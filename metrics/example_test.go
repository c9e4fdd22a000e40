package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/metrics"
)

// Mount the metrics at GET /metrics; each request is counted under its
// route's pattern.
func ExampleNew() {
	app := gwist.New()
	app.GET("/hello/:name", func(c *gwist.Ctx) error { return c.String(200, "Hello, "+c.Param("name")) })
	app.GET("/metrics", metrics.New(app).Handler())
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())

	for _, name := range []string{"ann", "bob"} {
		resp, err := http.Get("http://" + addr.String() + "/hello/" + name)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
	}
	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "gwist_http_requests_total") {
			fmt.Println(sc.Text())
		}
	}
	// Output:
	// gwist_http_requests_total{method="GET",protocol="h1",route="/hello/:name",status="2xx",tls="false"} 2
}

// Register the metrics in a registry of your own, and serve it from
// another server (here an admin port on net/http).
func ExampleWithRegistry() {
	app := gwist.New()
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	m := metrics.New(app, metrics.WithRegistry(prometheus.NewRegistry()))
	admin := http.NewServeMux()
	admin.Handle("GET /metrics", m.HTTPHandler())
	_ = admin // http.ListenAndServe("127.0.0.1:9100", admin)
	fmt.Println(m.Registry() != nil)
	// Output: true
}
