package parse

import "github.com/gwist/gwist/benchmarks/internal/stats"

// WSBench is the JSON line cmd/wsbench prints at the end of a run; which
// fields are set depends on Mode (idle, echo or broadcast).
type WSBench struct {
	Mode        string           `json:"mode"`
	Addr        string           `json:"addr"`
	Path        string           `json:"path"`
	Requested   int              `json:"requested"`
	Open        int              `json:"open"`
	Sources     int              `json:"sources"` // source addresses the connections were spread over
	OpenSeconds float64          `json:"open_seconds"`
	Errors      map[string]int64 `json:"errors"`
	// StatusNot101 is the status of a refused upgrade (404: no such route).
	StatusNot101 int `json:"status_not_101,omitempty"`

	// idle: the server's VmRSS before opening and after, and the growth
	// per open connection; Checked connections did one echo after the RSS
	// was read, CheckFailed of them failed it.
	RSSBefore    int64   `json:"rss_before,omitempty"`
	RSSAfter     int64   `json:"rss_after,omitempty"`
	BytesPerConn float64 `json:"bytes_per_conn,omitempty"`
	Checked      int     `json:"checked,omitempty"`
	CheckFailed  int     `json:"check_failed,omitempty"`

	// echo: completed round trips in the measured Seconds, their rate and
	// latency, and CPU time per round trip of this client and (with -pid)
	// of the server.
	Seconds        float64           `json:"seconds,omitempty"`
	RoundTrips     int64             `json:"round_trips,omitempty"`
	RoundTripsPerS float64           `json:"round_trips_per_sec,omitempty"`
	Latency        stats.Percentiles `json:"latency,omitzero"`
	ClientCPUPerRT float64           `json:"client_cpu_us_per_rt,omitempty"`
	ServerCPUPerRT float64           `json:"server_cpu_us_per_rt,omitempty"`
	// The server's CPU per round trip, user and system apart (they add up
	// to ServerCPUPerRT, to the 10 ms tick of /proc's counters).
	ServerUserPerRT float64 `json:"server_user_us_per_rt,omitempty"`
	ServerSysPerRT  float64 `json:"server_sys_us_per_rt,omitempty"`
	ClientCPUShare  float64 `json:"client_cpu_cores,omitempty"` // client CPU seconds per second
	ServerCPUShare  float64 `json:"server_cpu_cores,omitempty"`

	// broadcast: one entry per measured round, and the medians over them.
	Rounds       []BroadcastRound `json:"rounds,omitempty"`
	MedianLastMs float64          `json:"median_last_ms,omitempty"`
	MedianP50Ms  float64          `json:"median_p50_ms,omitempty"`
	MedianPostMs float64          `json:"median_post_ms,omitempty"`
	// MedianServerCPUMs is the server's CPU time per broadcast (with -pid):
	// from just before the POST to the last delivery.
	MedianServerCPUMs float64 `json:"median_server_cpu_ms,omitempty"`
}

// BroadcastRound is one POST /broadcast: times from just before the POST
// to its 200, to the median subscriber's delivery and to the last one's.
type BroadcastRound struct {
	PostMs      float64 `json:"post_ms"`
	P50Ms       float64 `json:"p50_ms"`
	LastMs      float64 `json:"last_ms"`
	Sent        int     `json:"sent"`                    // what the server said it handed off
	Delivered   int     `json:"delivered"`               // subscribers that got the message
	ServerCPUMs float64 `json:"server_cpu_ms,omitempty"` // with -pid
}

// ErrorCount is the total of Errors.
func (w WSBench) ErrorCount() int64 { return sum(w.Errors) }

// ParseWSBench decodes the JSON line of wsbench (the last one in out).
func ParseWSBench(out []byte) (WSBench, error) {
	var w WSBench
	return w, lastJSON(out, &w, "wsbench")
}
