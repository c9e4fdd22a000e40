package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/gwist/gwist"
)

// Flags for running behind a load balancer (see docs/operations.md,
// "Zero-downtime restart").
var (
	reusePort = flag.Bool("reuseport", false,
		"set SO_REUSEPORT on the listeners, so a new release can bind the same addresses while this one drains")
	drainDelay = flag.Duration("drain-delay", 0,
		"on SIGTERM, answer /readyz with 503 for this long before the listeners close (let the balancer notice)")
	healthAddr = flag.String("health-addr", "",
		"an extra plaintext listener of this process alone (no SO_REUSEPORT), for probing /readyz during a restart")
)

// healthRoutes mounts the liveness and readiness probes.
func healthRoutes(app *gwist.App) {
	app.GET("/livez", gwist.Livez)
	app.GET("/readyz", app.Readyz)
}

// opsAppOptions are the App options the flags above set.
func opsAppOptions() []gwist.Option {
	return []gwist.Option{gwist.WithDrainDelay(*drainDelay)}
}

// listenOptions are the listener options the flags above set.
func listenOptions() []gwist.ListenOption {
	opts := proxyListenOptions() // -proxy-protocol (proxy.go)
	if *reusePort {
		opts = append(opts, gwist.ReusePort())
	}
	return opts
}

// startHealthListener starts the -health-addr listener, if any.
func startHealthListener(app *gwist.App) error {
	if *healthAddr == "" {
		return nil
	}
	bound, err := app.Start(*healthAddr)
	if err == nil {
		fmt.Printf("health probes on http://%s/readyz\n", bound)
	}
	return err
}

// shutdownTimeout bounds the drain after SIGTERM: the delay, then up to 10 s
// for requests in flight.
func shutdownTimeout() time.Duration { return *drainDelay + 10*time.Second }
