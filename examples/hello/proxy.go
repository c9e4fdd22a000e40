package main

import (
	"flag"
	"fmt"
	"net/netip"
	"strings"

	"github.com/gwist/gwist"
)

// trustedProxies is -proxy-protocol: the networks whose connections to
// -addr and -tls-addr must begin with a PROXY protocol header (nil: off).
var trustedProxies []netip.Prefix

func init() {
	flag.Func("proxy-protocol",
		"read the PROXY protocol (v1 and v2) from these comma-separated trusted networks or addresses on -addr and -tls-addr, "+
			"e.g. 127.0.0.1 or 10.0.0.0/8,192.168.1.5 (off when empty)",
		func(s string) (err error) {
			trustedProxies, err = parseTrustedProxies(s)
			return err
		})
}

// parseTrustedProxies parses a comma-separated list of CIDR prefixes and
// addresses (an address is a /32 or /128 prefix).
func parseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p)
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither a network (10.0.0.0/8) nor an address", f)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// proxyListenOptions is ProxyProtocol over -proxy-protocol's networks, if any.
func proxyListenOptions() []gwist.ListenOption {
	if len(trustedProxies) == 0 {
		return nil
	}
	return []gwist.ListenOption{gwist.ProxyProtocol(trustedProxies...)}
}

// whoamiRoute mounts GET /whoami: the client's address as the server sees
// it ("ip:port\n"; behind a trusted proxy, the one its PROXY header gave).
func whoamiRoute(app *gwist.App) {
	app.GET("/whoami", func(c *gwist.Ctx) error {
		return c.String(200, c.RemoteAddr().String()+"\n")
	})
}
