package gwist_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gwist/gwist"
)

// A route that reads its body as a stream: the handler runs as soon as the
// head has arrived and hashes the body while it arrives, so an upload of
// any size costs the server no more than WithMaxBodyBuffered per
// connection. StreamBody(0) sets no size limit.
func ExampleGroup_StreamBody() {
	app := gwist.New()
	app.StreamBody(0).POST("/upload", func(c *gwist.Ctx) error {
		h := sha256.New()
		n, err := io.Copy(h, c.BodyReader())
		if err != nil {
			return err // gwist.ErrBodyAborted, or an *HTTPError such as 413
		}
		return c.String(200, fmt.Sprintf("%d bytes, sha256 %x", n, h.Sum(nil)))
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Post("http://"+addr.String()+"/upload",
		"application/octet-stream", strings.NewReader("hello, world\n"))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(string(b))
	// Output: 13 bytes, sha256 853ff93762a06ddbf722c4ebe9ddd66d8f63ddaea97f521c3ecc20da7c976020
}

// BodyReader works on every route: on an ordinary one it reads the body
// that was buffered before the handler ran.
func ExampleCtx_BodyReader() {
	app := gwist.New()
	app.POST("/lines", func(c *gwist.Ctx) error {
		b, err := io.ReadAll(c.BodyReader())
		if err != nil {
			return err
		}
		return c.String(200, fmt.Sprint(strings.Count(string(b), "\n"), " lines"))
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Post("http://"+addr.String()+"/lines", "text/plain",
		strings.NewReader("a\nb\nc\n"))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(string(b))
	// Output: 3 lines
}
