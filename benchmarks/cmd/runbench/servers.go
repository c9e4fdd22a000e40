package main

import (
	"strconv"
	"strings"
)

// serverDef is one row of the result tables: a server binary started with
// some extra flags on its own fixed ports.
type serverDef struct {
	name      string   // row name
	binary    string   // file name in bin/
	extra     []string // flags after the common ones
	plainPort int
	tlsPort   int  // 0: plaintext only
	ours      bool // gwist or one of its variants
	ceiling   bool // gnetbare: canned responses, no routing
	variant   bool // only in the workloads that name it
	plainOnly bool // no HTTPS listener
	cref      bool // C reference (nginx, h2o): started from a rendered config, not a Go binary
}

// baseRow is the row (and bin name) of examples/hello built at -base.
const baseRow = "gwist-base"

// portBase places the rows' fixed ports: row n (from 1) listens on
// portBase+n for plaintext and portBase+100+n for HTTPS. It is below the
// Linux ephemeral range (32768–60999) and away from the usual 8080/8443
// and 18080/18443 that other programs on a shared machine tend to use.
// -port-base moves it.
var portBase = 24100

// allServers lists every row, in the order they run within a round; ports
// are filled in by assignPorts.
var allServers = assignPorts([]serverDef{
	{name: "gwist", binary: "gwist", extra: []string{"-http2"}, ours: true},
	{name: "gwist-inline", binary: "gwist", extra: []string{"-inline", "-http2"}, ours: true, variant: true},
	{name: "gwist-noquickack", binary: "gwist", extra: []string{"-quickack=false"}, ours: true, variant: true},
	// examples/hello at -base's revision, beside the checkout's (only with -base).
	{name: baseRow, binary: baseRow, extra: []string{"-http2"}, ours: true, variant: true},
	{name: "nethttp", binary: "nethttp"},
	{name: "fasthttp", binary: "fasthttp"},
	{name: "nbio", binary: "nbio"},
	{name: "gnetbare", binary: "gnetbare", ceiling: true},
	// WebSocket rows: only in the ws-* workloads (plaintext only).
	{name: "wsgwist", binary: "wsgwist", plainOnly: true, ours: true, variant: true},
	{name: "wsgorilla", binary: "wsgorilla", plainOnly: true, variant: true},
	{name: "wsnbio", binary: "wsnbio", plainOnly: true, variant: true},
	{name: "wsgwist-inline", binary: "wsgwist", extra: []string{"-inline"}, plainOnly: true, ours: true, variant: true},
	{name: "wsbare", binary: "wsbare", plainOnly: true, ceiling: true, variant: true},
	// gRPC rows: only in the grpc-* workloads (h2c only; servers/grpcsvc).
	{name: "grpc-gwist", binary: "grpcsvc", extra: []string{"-mode", "gwist"}, plainOnly: true, ours: true, variant: true},
	{name: "grpc-native", binary: "grpcsvc", extra: []string{"-mode", "native"}, plainOnly: true, variant: true},
	{name: "grpc-nethttp", binary: "grpcsvc", extra: []string{"-mode", "nethttp"}, plainOnly: true, variant: true},
	{name: "grpc-connect", binary: "grpcsvc", extra: []string{"-mode", "connect"}, plainOnly: true, variant: true},
	// C reference rows (servers/cref): Debian's nginx and h2o, in the workloads that name them.
	{name: "nginx", binary: "nginx", cref: true, variant: true},
	{name: "h2o", binary: "h2o", cref: true, variant: true},
})

// assignPorts gives row n (from 1) its ports from portBase; the ceiling
// row is plaintext only.
func assignPorts(defs []serverDef) []serverDef {
	for i := range defs {
		defs[i].plainPort = portBase + i + 1
		defs[i].tlsPort = 0
		if !defs[i].ceiling && !defs[i].plainOnly {
			defs[i].tlsPort = portBase + 100 + i + 1
		}
	}
	return defs
}

func (s serverDef) plainAddr() string { return "127.0.0.1:" + strconv.Itoa(s.plainPort) }
func (s serverDef) tlsAddr() string   { return "127.0.0.1:" + strconv.Itoa(s.tlsPort) }

// args returns the server's command-line flags; withTLS adds the HTTPS
// listener and the shared certificate.
func (s serverDef) args(withTLS bool, certFile, keyFile string) []string {
	a := []string{"-addr", s.plainAddr()}
	if withTLS {
		a = append(a, "-tls-addr", s.tlsAddr(), "-cert", certFile, "-key", keyFile)
	}
	return append(a, s.extra...)
}

// selectServers keeps the rows named in list (comma-separated row or binary
// names; empty keeps all).
func selectServers(list string) []serverDef {
	if strings.TrimSpace(list) == "" {
		return allServers
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []serverDef
	for _, s := range allServers {
		if want[s.name] || want[s.binary] {
			out = append(out, s)
		}
	}
	return out
}
