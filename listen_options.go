package gwist

import "github.com/gwist/gwist/engine"

// A ListenOption configures one listener: pass it to Start, StartTLS,
// Listen, ServeTLS or ListenTLS. Options that concern the whole App (limits,
// workers, HTTP/2) are Options given to New.
type ListenOption func(*listenConfig)

// listenConfig is what a ListenOption may change: the listener's copy of
// the App's engine configuration.
type listenConfig struct{ engine *engine.Config }

// ReusePort sets SO_REUSEPORT on the listening socket, so that another
// process (a new release of the same service) can bind the same address
// while this one still serves: the kernel spreads new connections over
// every socket bound with the option. Without it, which is the default, a
// second server on the same address fails with "address already in use",
// as net/http does, instead of silently splitting the traffic. Both
// processes must set it, and on Linux both must run as the same user.
// See docs/operations.md, "Zero-downtime restart".
func ReusePort() ListenOption {
	return func(c *listenConfig) { c.engine.ReusePort = true }
}
