// Command wsgwist is gwist's server for the WebSocket broadcast benchmark,
// with the same routes as the peers (wsgorilla, wsnbio), on gwist's
// WebSocket API: callbacks on the worker pool, no goroutine per
// connection, and a gwist.WSHub that encodes each broadcast once.
//
//	GET  /ws                  echo every message (text and binary)
//	GET  /ws/sub              receive every broadcast
//	POST /broadcast?bytes=N   hand one binary message of N bytes to every subscriber
//
// (The idle and echo workloads use examples/hello's own /ws.)
package main

import (
	"context"
	"flag"
	"time"

	"github.com/gwist/gwist"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	inline := flag.Bool("inline", false, "run the callbacks on the event loop (gwist.WithInline) instead of the worker pool")
	loops := flag.Int("loops", 0, "event loops (gwist.WithLoops; 0: gwist's default, half the cores with the worker pool)")
	memProfile := flag.String("memprofile", "", "write a heap profile to this file on SIGUSR1 (for the RSS breakdown)")
	memRate := flag.Int("memprofilerate", 0, "runtime.MemProfileRate with -memprofile (0: Go's default, 512 KiB)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (stops at SIGTERM)")
	flag.Parse()
	if *cpuProfile != "" {
		stop, err := serve.StartCPUProfile(*cpuProfile)
		if err != nil {
			serve.Fatal("wsgwist", err)
		}
		defer stop()
	}
	if *memProfile != "" {
		serve.HeapProfileOnSignal(*memProfile, *memRate)
	}
	app := gwist.New(gwist.WithInline(*inline), gwist.WithLoops(*loops))
	hub := gwist.NewWSHub()
	app.GET(serve.WSPath, gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			_ = ws.WriteMessage(op, data)
		},
	}))
	app.GET(serve.WSSubPath, gwist.WebSocket(&gwist.WSHandler{
		OnOpen: hub.Add, // connections leave the hub by themselves when they close
	}))
	app.POST(serve.BroadcastPath, func(c *gwist.Ctx) error {
		n, err := serve.ParseBroadcastSize(c.Query("bytes"))
		if err != nil {
			return c.String(400, err.Error())
		}
		return c.String(200, serve.BroadcastReply(hub.Broadcast(gwist.BinaryMessage, serve.BroadcastPayload(n))))
	})
	bound, err := app.Start(*addr)
	if err != nil {
		serve.Fatal("wsgwist", err)
	}
	serve.Announce("http", bound.String())
	serve.WaitSignal()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = app.Shutdown(ctx)
}
