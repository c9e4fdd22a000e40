package gwist_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// timingObserver keeps the start and duration of every request observed.
type timingObserver struct {
	mu   sync.Mutex
	seen []gwist.Observation
}

func (o *timingObserver) Routes([]gwist.RouteInfo) {}

func (o *timingObserver) Observe(ob gwist.Observation) {
	ob.Method, ob.Pattern = "", "" // they point into the request's memory
	o.mu.Lock()
	o.seen = append(o.seen, ob)
	o.mu.Unlock()
}

func (o *timingObserver) observed() []gwist.Observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]gwist.Observation(nil), o.seen...)
}

// Pipelined requests that arrive together are served one after another
// (in one batch on a worker, or in one read inline), and the observer
// takes the end of one as the start of the next (Exchange.ClockCarry):
// one clock read per request instead of two. Each must still be timed
// from its own start, not from the batch's.
func TestObserverTimesPipelinedRequestsEach(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		const n, handlerTime = 4, 15 * time.Millisecond
		app := gwist.New(gwist.WithInline(inline))
		app.GET("/slow", func(c *gwist.Ctx) error {
			time.Sleep(handlerTime)
			return c.String(200, "ok")
		})
		obs := &timingObserver{}
		app.SetObserver(obs)
		r := dialRaw(t, startApp(t, app))
		r.send(strings.Repeat("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", n))
		for i := range n {
			if resp, body := r.readResponse("GET"); resp.StatusCode != 200 || body != "ok" {
				t.Fatalf("response %d: %d %q", i, resp.StatusCode, body)
			}
		}
		var seen []gwist.Observation
		for deadline := time.Now().Add(5 * time.Second); len(seen) < n && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond) // the observer runs after the response is handed over
			seen = obs.observed()
		}
		if len(seen) != n {
			t.Fatalf("%d requests observed, want %d", len(seen), n)
		}
		carried := 0
		for i, o := range seen {
			if o.Duration < handlerTime || o.Duration > handlerTime+50*time.Millisecond {
				t.Errorf("request %d timed %v, its handler took %v", i, o.Duration, handlerTime)
			}
			if i == 0 {
				continue
			}
			end := seen[i-1].Start.Add(seen[i-1].Duration)
			if o.Start.Before(end) {
				t.Errorf("request %d started %v before request %d ended", i, end.Sub(o.Start), i-1)
			}
			if o.Start.Equal(end) {
				carried++
			}
		}
		// They arrived in one write: at least some were served back to
		// back and started at the reading that ended the one before.
		if carried == 0 {
			t.Errorf("no request took the previous one's end as its start: %+v", seen)
		}
	})
}
