package gwist_test

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/gwist/gwist"
)

func Example() {
	app := gwist.New()
	app.GET("/hello/:name", func(c *gwist.Ctx) error {
		return c.String(200, "Hello, "+c.Param("name")+"!")
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/hello/gopher")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))
	// Output: 200 Hello, gopher!
}

func ExampleGroup_Use() {
	app := gwist.New()
	api := app.Group("/api")
	api.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			c.SetHeader("X-API-Version", "1")
			return next(c)
		}
	})
	api.GET("/ping", func(c *gwist.Ctx) error { return c.String(200, "pong") })
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/api/ping")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Header.Get("X-API-Version"))
	// Output: 1
}

func ExampleCtx_JSON() {
	app := gwist.New(gwist.WithInline(true))
	app.GET("/json", func(c *gwist.Ctx) error {
		return c.JSON(200, map[string]string{"message": "Hello, World!"})
	})
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/json")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.Header.Get("Content-Type"), " ", string(body))
	// Output: application/json {"message":"Hello, World!"}
}
