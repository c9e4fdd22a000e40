// Command conformance-server is the Connect conformance suite's server
// under test for gwist: connect-go's ConformanceService handler (the
// suite's own reference implementation, copied from
// connectrpc.com/conformance v1.0.7 under its Apache 2.0 licence) mounted
// on gwist with gwist.WrapHandler. With -nethttp it serves the same handler
// on net/http instead, as the suite's reference server does, for the
// comparison. Run it under the suite's runner:
//
//	connectconformance --mode server --conf conformance/config.yaml -- conformance-server
package main

import (
	"context"
	"log"
	"os"
	"os/signal"
	"syscall"

	referenceserver "github.com/gwist/gwist/interop/conformance/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := referenceserver.Run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr); err != nil {
		log.Fatalf("conformance server: %v", err)
	}
}
