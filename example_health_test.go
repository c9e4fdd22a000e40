package gwist_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gwist/gwist"
)

// Readiness turns 503 the moment Shutdown begins; with WithDrainDelay the
// App keeps serving for that long before its listeners close, so a load
// balancer polling /readyz has time to take it out of rotation.
func ExampleApp_Readyz() {
	app := gwist.New(gwist.WithDrainDelay(200 * time.Millisecond))
	app.GET("/livez", gwist.Livez)
	app.GET("/readyz", app.Readyz)
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	probe := func(path string) {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + path)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%s %d %s", path, resp.StatusCode, body)
	}
	probe("/readyz")

	done := make(chan error)
	go func() { done <- app.Shutdown(context.Background()) }()
	for app.Ready() {
		time.Sleep(time.Millisecond)
	}
	probe("/readyz") // during the drain delay: still accepting
	probe("/livez")
	fmt.Println(<-done)
	// Output:
	// /readyz 200 ok
	// /readyz 503 draining
	// /livez 200 ok
	// <nil>
}

// A Shutdown whose context ends before a request finishes says how many
// connections it cut.
func ExampleShutdownError() {
	app := gwist.New()
	started := make(chan struct{})
	app.GET("/hang", func(c *gwist.Ctx) error {
		close(started)
		<-c.Context().Done() // until the connection is cut
		return nil
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	go (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/hang")
	<-started

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = app.Shutdown(ctx)
	var se *gwist.ShutdownError
	fmt.Println(errors.As(err, &se), se.Cut, errors.Is(err, context.DeadlineExceeded))
	// Output: true 1 true
}

// ReusePort lets a second process (the next release) bind the same
// address; without it the second Start fails with "address already in use".
func ExampleReusePort() {
	first, second := gwist.New(), gwist.New()
	addr, err := first.Start("127.0.0.1:0", gwist.ReusePort())
	if err != nil {
		panic(err)
	}
	defer first.Shutdown(context.Background())
	if _, err := second.Start(addr.String(), gwist.ReusePort()); err != nil {
		panic(err)
	}
	defer second.Shutdown(context.Background())
	fmt.Println("both bound", addr.String() != "")
	// Output: both bound true
}
