package gwist_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/gwist/gwist"
)

// A chat room's listeners as SSEFeeds: the handler registers the feed and
// returns, so a listener costs no goroutine while it waits; whoever posts
// sends to every feed, dropping the ones that ended.
func ExampleCtx_SSEFeed() {
	var (
		mu        sync.Mutex
		listeners []*gwist.SSEFeed
		joined    = make(chan struct{}, 1)
	)
	broadcast := func(ev gwist.SSEEvent) {
		mu.Lock()
		defer mu.Unlock()
		open := listeners[:0]
		for _, f := range listeners {
			if err := f.Send(ev); err == nil || err == gwist.ErrSlowClient {
				open = append(open, f) // a slow one misses this event
			}
		}
		listeners = open
	}
	app := gwist.New()
	app.GET("/room", func(c *gwist.Ctx) error {
		f, err := c.SSEFeed()
		if err != nil {
			return err
		}
		mu.Lock()
		listeners = append(listeners, f)
		mu.Unlock()
		joined <- struct{}{}
		return nil // the feed stays open
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/room")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	<-joined
	broadcast(gwist.SSEEvent{Event: "msg", Data: "hello, room"})
	mu.Lock()
	_ = listeners[0].Close() // ends this listener's stream
	mu.Unlock()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		fmt.Printf("%q\n", sc.Text())
	}
	// Output:
	// "event: msg"
	// "data: hello, room"
	// ""
}
