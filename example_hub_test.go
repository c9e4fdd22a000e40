package gwist_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/gwist/gwist"
)

// An SSEHub publishes each event once to every open feed; feeds hold no
// goroutine on gwist's listeners and leave the hub when they end. (Here
// under httptest, where ServeHTTP writes each feed on net/http's
// goroutine for its request.)
func ExampleNewSSEHub() {
	hub := gwist.NewSSEHub()
	joined := make(chan struct{}, 1) // for this example: publish once the feed is in
	app := gwist.New()
	app.GET("/events", func(c *gwist.Ctx) error {
		f, err := c.SSEFeed()
		if err != nil {
			return err
		}
		hub.Add(f)
		joined <- struct{}{}
		return nil
	})
	srv := httptest.NewServer(app)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/events")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	<-joined
	sent, dropped, _ := hub.Publish(gwist.SSEEvent{ID: "1", Event: "change", Data: `{"op":"created"}`})
	fmt.Println("sent", sent, "dropped", dropped)
	br := bufio.NewReader(resp.Body)
	for range 3 {
		line, _ := br.ReadString('\n')
		fmt.Print(line)
	}
	// Output:
	// sent 1 dropped 0
	// id: 1
	// event: change
	// data: {"op":"created"}
}
