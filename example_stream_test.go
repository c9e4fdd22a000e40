package gwist_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gwist/gwist"
)

// A handler that streams its body: each Flush sends what was written so
// far (chunked, since no Content-Length was set), and a trailer follows
// the last chunk.
func ExampleCtx_Flush() {
	app := gwist.New()
	app.GET("/count", func(c *gwist.Ctx) error {
		for i := 1; i <= 3; i++ {
			fmt.Fprintf(c, "line %d\n", i)
			if err := c.Flush(); err != nil {
				return err // the client left: c.Context() is done too
			}
		}
		c.SetTrailer("X-Lines", "3")
		return nil
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/count")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		fmt.Println(sc.Text())
	}
	fmt.Println(resp.TransferEncoding, "X-Lines:", resp.Trailer.Get("X-Lines"))
	// Output:
	// line 1
	// line 2
	// line 3
	// [chunked] X-Lines: 3
}

// Server-Sent Events: each Send goes out at once; the stream ends when the
// function returns or the client leaves (s.Done()).
func ExampleCtx_SSE() {
	app := gwist.New()
	app.GET("/events", func(c *gwist.Ctx) error {
		return c.SSE(func(s *gwist.SSE) error {
			for i := 1; i <= 2; i++ {
				ev := gwist.SSEEvent{ID: strconv.Itoa(i), Event: "tick", Data: "n=" + strconv.Itoa(i) + "\nok"}
				if err := s.Send(ev); err != nil {
					return err
				}
			}
			return nil
		})
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/events")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Header.Get("Content-Type"))
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); !strings.HasPrefix(line, ":") { // skip heartbeat comments
			fmt.Printf("%q\n", line)
		}
	}
	// Output:
	// text/event-stream
	// "id: 1"
	// "event: tick"
	// "data: n=1"
	// "data: ok"
	// ""
	// "id: 2"
	// "event: tick"
	// "data: n=2"
	// "data: ok"
	// ""
}

// WithMaxConns caps the open connections over all of an App's listeners;
// the default is derived from the process's descriptor limit.
func ExampleWithMaxConns() {
	app := gwist.New(gwist.WithMaxConns(10000))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	if _, err := app.Start("127.0.0.1:0"); err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())
	fmt.Println(app.Stats().MaxConns)
	// Output: 10000
}
