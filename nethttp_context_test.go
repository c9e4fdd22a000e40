package gwist_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

type bridgeCtxKey struct{}

// A wrapped handler's context outlives it safely, as net/http's does:
// cancelled when the handler returns, its values gone, and a goroutine
// that derives from it and cancels after the return (grpc-go does) reads
// nothing of the next request on the connection (run with -race).
func TestWrapHandlerContextAfterReturn(t *testing.T) {
	app := gwist.New()
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			c.SetContext(context.WithValue(c.Context(), bridgeCtxKey{}, c.Path()))
			return next(c)
		}
	})
	type after struct {
		during, later any
		err           error
	}
	got := make(chan after, 8)
	app.GET("/*path", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
		during := ctx.Value(bridgeCtxKey{})
		go func() {
			<-r.Context().Done() // the handler returned
			got <- after{during: during, later: ctx.Value(bridgeCtxKey{}), err: r.Context().Err()}
			cancel()
		}()
		fmt.Fprint(w, "ok")
	}))
	addr := startApp(t, app)
	c := newClient(t)
	for i := range 5 {
		path := fmt.Sprintf("/r%d", i)
		if _, body := get(t, c, "http://"+addr+path); body != "ok" {
			t.Fatalf("%s: %q", path, body)
		}
		select {
		case a := <-got:
			if a.during != path || a.later != nil || a.err != context.Canceled {
				t.Errorf("%s: value while running %v, after %v; Err after %v", path, a.during, a.later, a.err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the context was not cancelled when the handler returned", path)
		}
	}
}
