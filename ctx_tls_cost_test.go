package gwist

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestCtxTLSCost measures, inside a handler on a TLS connection, what one
// c.TLS() costs when a request asks for it: allocations (pinned: one) and
// time (logged; go test -v -run TestCtxTLSCost shows it).
func TestCtxTLSCost(t *testing.T) {
	certSrv := httptest.NewTLSServer(http.NotFoundHandler())
	cfg := &tls.Config{Certificates: certSrv.TLS.Certificates}
	client := certSrv.Client()
	certSrv.Close()

	type result struct {
		allocs float64
		res    testing.BenchmarkResult
	}
	results := make(chan result, 1)
	app := New()
	app.GET("/", func(c *Ctx) error {
		once := func() { c.tlsRead = false; _ = c.TLS() }
		allocs := testing.AllocsPerRun(200, once)
		res := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				once()
			}
		})
		results <- result{allocs, res}
		return c.String(200, "ok")
	})
	addr, err := app.StartTLS("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Shutdown(t.Context())
	client.Timeout = 30 * time.Second
	resp, err := client.Get("https://" + addr.String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	r := <-results
	allocs, res := r.allocs, r.res
	if allocs != 1 {
		t.Fatalf("c.TLS() costs %v allocations, want 1", allocs)
	}
	t.Logf("c.TLS(): %.0f allocation, %d B, %d ns", allocs, res.AllocedBytesPerOp(), res.NsPerOp())
}
