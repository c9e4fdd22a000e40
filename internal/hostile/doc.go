// Package hostile holds the hostile clients that measure how a server
// stands up to the attacks of issue 21 (WebSocket ping floods, WebSocket
// peers that never read, HTTP/2 request bodies that stall), plus the
// instruments that judge the server meanwhile: a live client (LiveProbe,
// whose requests can be summed up by phase; LiveProbeChild runs it in a
// process of its own), samplers of the server's RSS (SampleRSS) and CPU
// time (SampleCPU, which tells when a burst of work ended and splits the
// live client's requests there: SplitAtBurst), and the machine's stall
// time (ReadPressure).
//
// Every attack dials raw TCP (no client library between the attack and
// the socket), runs until its context is done or its Duration has passed,
// then closes its connections and returns a result struct; none of them
// fails a test by itself, so the same code serves Go tests and the
// benchmarks' hostile command (benchmarks/cmd/hostile):
//
//	res := hostile.PingFlood(ctx, hostile.PingFloodConfig{Addr: addr, Duration: 10 * time.Second})
//	if res.Closed == 0 { t.Error("the server kept a ping flood open") }
//
// Times in results are measured from the start of the attack. The package
// uses the standard library, golang.org/x/net/http2's Framer and hpack,
// and gwist's websocket package for framing.
package hostile
