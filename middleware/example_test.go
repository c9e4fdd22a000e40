package middleware_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// The usual app-level chain; the CORS preflight is answered before routing.
func Example() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr { // keep the output stable
			switch a.Key {
			case "time", "duration", "remote", "request_id":
				return slog.Attr{}
			}
			return a
		}}))
	app := gwist.New()
	app.Use(
		middleware.RequestID(),
		middleware.AccessLog(logger),
		middleware.Recover(),
		middleware.Gzip(middleware.GzipConfig{}),
		middleware.CORS(middleware.CORSConfig{AllowOrigins: []string{"http://localhost:3000"}}),
	)
	app.POST("/todos", func(c *gwist.Ctx) error { return c.String(201, "created") })
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("OPTIONS", "http://"+addr.String()+"/todos", nil)
	req.Header.Set("Origin", "http://localhost:3000")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		panic(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	// Output:
	// level=INFO msg=request method=OPTIONS route="" path=/todos status=204 bytes=0
	// 204 http://localhost:3000
}
