package hostile

import (
	"cmp"
	"context"
	"io"
	"math"
	"net/http"
	"slices"
	"time"
)

// ProbeConfig configures [LiveProbe].
type ProbeConfig struct {
	// URL is what the live client GETs (e.g. "http://127.0.0.1:8080/").
	URL string
	// Interval is the time between the starts of two requests (default
	// 10 ms); a request slower than that delays the next, never overlaps it.
	Interval time.Duration
	// Timeout bounds one request (default 5 s).
	Timeout time.Duration
	// Duration bounds the probe (0: until ctx is done).
	Duration time.Duration
	// KeepRequests keeps every request's timing in the result
	// (ProbeResult.Requests), for Phase.
	KeepRequests bool
}

// ProbeResult is what [LiveProbe] returns. Latencies cover every request,
// failed ones included (a timeout counts as its full wait).
type ProbeResult struct {
	Count  int
	OK     int // 200s
	Non200 int // Count - OK: other statuses and failed requests
	Errors int // requests without a response (refused, reset, timed out)
	// Statuses counts the responses by status code.
	Statuses      map[int]int
	P50, P99, Max time.Duration
	FirstError    string `json:",omitempty"`
	// FirstNon200 is when the first request that was not a 200 started.
	FirstNon200 time.Duration
	Elapsed     time.Duration
	// Slowest are the slowest requests (at most SlowestKept), slowest
	// first: when they started tells a stall of the server from a slow
	// start or a burst at the attack's end.
	Slowest []TimedRequest `json:",omitempty"`
	// Requests are all the requests, in the order they were made, when
	// ProbeConfig.KeepRequests was set.
	Requests []TimedRequest `json:",omitempty"`
}

// Latencies sums up a run of requests.
type Latencies struct {
	Count         int
	P50, P99, Max time.Duration
}

// ToEnd is Phase's end for a phase that lasts to the probe's end.
const ToEnd = time.Duration(math.MaxInt64)

// Phase sums up the requests (of Requests: see KeepRequests) that started
// in [from, to) since the probe did.
func (r ProbeResult) Phase(from, to time.Duration) Latencies {
	return summarize(r.Requests, from, to)
}

// summarize sums up the requests of reqs that started in [from, to).
func summarize(reqs []TimedRequest, from, to time.Duration) Latencies {
	var lat []time.Duration
	for _, q := range reqs {
		if q.At >= from && q.At < to {
			lat = append(lat, q.Took)
		}
	}
	slices.Sort(lat)
	l := Latencies{Count: len(lat), P50: Percentile(lat, 0.50), P99: Percentile(lat, 0.99)}
	if len(lat) > 0 {
		l.Max = lat[len(lat)-1]
	}
	return l
}

// SlowestKept is how many of the slowest requests ProbeResult keeps.
const SlowestKept = 5

// TimedRequest is one request of a probe: when it started (since the
// probe did) and how long it took.
type TimedRequest struct {
	At, Took time.Duration
}

// LiveProbe is a well-behaved client beside an attack: sequential GETs of
// cfg.URL at a fixed rate over one keep-alive HTTP/1.1 connection (a new
// one when the server closes it), until the duration passes or ctx is done.
func LiveProbe(ctx context.Context, cfg ProbeConfig) ProbeResult {
	if cfg.Interval <= 0 {
		cfg.Interval = 10 * time.Millisecond
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	start := time.Now() // before the deadline is set: Elapsed covers Duration
	ctx, cancel := withDuration(ctx, cfg.Duration)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: cfg.Timeout}

	res := ProbeResult{Statuses: map[int]int{}}
	var reqs []TimedRequest
	t := time.NewTicker(cfg.Interval)
	defer t.Stop()
	for {
		t0 := time.Now()
		status, err := get(ctx, client, cfg.URL)
		if ctx.Err() != nil && err != nil {
			break // cut by the end of the probe: not the server's doing
		}
		reqs = append(reqs, TimedRequest{At: t0.Sub(start), Took: time.Since(t0)})
		res.Count++
		switch {
		case err != nil:
			res.Errors++
			if res.FirstError == "" {
				res.FirstError = err.Error()
			}
		case status == http.StatusOK:
			res.OK++
		default:
			res.Statuses[status]++
		}
		if (err != nil || status != http.StatusOK) && res.Non200 == 0 {
			res.FirstNon200 = t0.Sub(start)
		}
		if err != nil || status != http.StatusOK {
			res.Non200++
		}
		select {
		case <-ctx.Done():
		case <-t.C:
			continue
		}
		break
	}
	res.Statuses[http.StatusOK] = res.OK
	res.Elapsed = time.Since(start)
	all := summarize(reqs, 0, ToEnd)
	res.P50, res.P99, res.Max = all.P50, all.P99, all.Max
	if cfg.KeepRequests {
		res.Requests = reqs
	}
	byTime := slices.Clone(reqs)
	slices.SortStableFunc(byTime, func(a, b TimedRequest) int { return cmp.Compare(b.Took, a.Took) })
	res.Slowest = byTime[:min(len(byTime), SlowestKept)]
	return res
}

// get does one GET and reads the body to the end (so the connection is
// reused).
func get(ctx context.Context, client *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// Percentile returns the p-quantile (0 < p <= 1, nearest rank) of sorted
// latencies, 0 when there are none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
