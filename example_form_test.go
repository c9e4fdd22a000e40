package gwist_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/gwist/gwist"
)

func exampleClient() (*http.Client, func()) {
	tr := &http.Transport{}
	return &http.Client{Transport: tr}, tr.CloseIdleConnections
}

func printResponse(resp *http.Response, err error) {
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.StatusCode, " ", string(b))
}

// SetCookie sends a cookie with its attributes; Cookie reads it back.
func ExampleCtx_SetCookie() {
	app := gwist.New()
	app.GET("/login", func(c *gwist.Ctx) error {
		c.SetCookie(&http.Cookie{Name: "session", Value: "abc123", Path: "/", HttpOnly: true,
			Secure: true, SameSite: http.SameSiteLaxMode, MaxAge: 3600})
		return c.NoContent(204)
	})
	app.GET("/me", func(c *gwist.Ctx) error {
		ck, err := c.Cookie("session")
		if err != nil {
			return gwist.NewHTTPError(401, "")
		}
		return c.String(200, "session "+ck.Value+"\n")
	})
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())
	client, done := exampleClient()
	defer done()

	resp, _ := client.Get("http://" + addr.String() + "/login")
	resp.Body.Close()
	fmt.Println(resp.Header.Get("Set-Cookie"))
	req, _ := http.NewRequest("GET", "http://"+addr.String()+"/me", nil)
	req.AddCookie(&http.Cookie{Name: "session", Value: "abc123"})
	printResponse(client.Do(req))
	// Output:
	// session=abc123; Path=/; Max-Age=3600; HttpOnly; Secure; SameSite=Lax
	// 200 session abc123
}

// QueryAll returns every value of a repeated query parameter.
func ExampleCtx_QueryAll() {
	app := gwist.New()
	app.GET("/todos", func(c *gwist.Ctx) error {
		return c.String(200, fmt.Sprintf("%q\n", c.QueryAll("tag")))
	})
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())
	client, done := exampleClient()
	defer done()
	printResponse(client.Get("http://" + addr.String() + "/todos?tag=home&tag=urgent%21"))
	// Output: 200 ["home" "urgent!"]
}

// FormValue reads a url-encoded (or multipart) form field.
func ExampleCtx_FormValue() {
	app := gwist.New()
	app.POST("/todos", func(c *gwist.Ctx) error {
		return c.String(201, "created "+c.FormValue("title")+"\n")
	})
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())
	client, done := exampleClient()
	defer done()
	printResponse(client.PostForm("http://"+addr.String()+"/todos", url.Values{"title": {"buy milk"}}))
	// Output: 201 created buy milk
}

// BindJSON with BindDisallowUnknownFields answers a 400 that names the
// unknown field.
func ExampleCtx_BindJSON() {
	app := gwist.New()
	app.POST("/todos", func(c *gwist.Ctx) error {
		var in struct {
			Title string `json:"title"`
		}
		if err := c.BindJSON(&in, gwist.BindDisallowUnknownFields()); err != nil {
			return err
		}
		return c.JSON(201, in)
	})
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())
	client, done := exampleClient()
	defer done()
	url := "http://" + addr.String() + "/todos"
	printResponse(client.Post(url, "application/json", strings.NewReader(`{"title":"buy milk"}`)))
	printResponse(client.Post(url, "application/json", strings.NewReader(`{"title":"x","due":"soon"}`)))
	printResponse(client.Post(url, "text/plain", strings.NewReader(`{"title":"x"}`)))
	// Output:
	// 201 {"title":"buy milk"}
	// 400 invalid JSON body: unknown field "due"
	// 415 Content-Type must be application/json
}
