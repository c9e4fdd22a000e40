package parse_test

import (
	"fmt"

	"github.com/gwist/gwist/benchmarks/internal/parse"
)

func ExampleParseWrk() {
	out := `Running 10s test @ http://127.0.0.1:8080/
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   530.52us    1.20ms  30.35ms   94.69%
  1467466 requests in 10.01s, 179.13MB read
Requests/sec: 146608.75
Transfer/sec:     17.90MB`
	w, err := parse.ParseWrk(out)
	fmt.Println(w.RequestsPerSec, w.LatencyAvg, w.Errors(), err)
	// Output: 146608.75 530.52µs 0 <nil>
}

func ExampleParseH2load() {
	out := `Application protocol: h2
finished in 1.25s, 80000.00 req/s, 3.10MB/s
requests: 100000 total, 100000 started, 100000 done, 100000 succeeded, 0 failed, 0 errored, 0 timeout`
	h, _ := parse.ParseH2load(out)
	fmt.Println(h.RequestsPerSec, h.SpokeH2())
	// Output: 80000 true
}
