package gwist_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/gwist/gwist"
)

// Static serves a directory: conditional requests, ranges and HEAD are
// answered from the file's metadata.
func ExampleGroup_Static() {
	dir, _ := os.MkdirTemp("", "static")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, file\n"), 0o644)

	app := gwist.New()
	app.Static("/assets", dir)
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	resp, _ := client.Get("http://" + addr.String() + "/assets/hello.txt")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.StatusCode, " ", resp.Header.Get("Content-Type"), " ", string(body))

	req, _ := http.NewRequest("GET", "http://"+addr.String()+"/assets/hello.txt", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	resp, _ = client.Do(req)
	resp.Body.Close()
	fmt.Println(resp.StatusCode)

	req.Header.Del("If-None-Match")
	req.Header.Set("Range", "bytes=7-10")
	resp, _ = client.Do(req)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Range"), string(body))
	// Output:
	// 200 text/plain; charset=utf-8 hello, file
	// 304
	// 206 bytes 7-10/12 file
}

// StaticFS serves an fs.FS, such as an embed.FS (or fs.Sub of one); here
// the directory testdata/static is embedded by this package's tests.
func ExampleGroup_StaticFS() {
	app := gwist.New()
	app.StaticFS("/", embedded) // //go:embed testdata/static
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, _ := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/testdata/static/app.js")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.StatusCode, " ", resp.Header.Get("Content-Type"), " ", string(body))
	// Output: 200 text/javascript; charset=utf-8 console.log("embedded");
}

// File sends one file chosen by the handler.
func ExampleCtx_File() {
	f, _ := os.CreateTemp("", "report-*.csv")
	defer os.Remove(f.Name())
	_, _ = f.WriteString("id,total\n1,42\n")
	f.Close()

	app := gwist.New()
	app.GET("/report.csv", func(c *gwist.Ctx) error { return c.File(f.Name()) })
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, _ := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/report.csv")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.Header.Get("Content-Type"), "\n", string(body))
	// Output:
	// text/csv; charset=utf-8
	// id,total
	// 1,42
}
