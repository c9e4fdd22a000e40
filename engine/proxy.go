//go:build unix

package engine

import (
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"sync/atomic"

	"github.com/gwist/gwist/internal/lograte"
	"github.com/gwist/gwist/proxyproto"
)

// ProxyProtocol makes a listener read the PROXY protocol (Config.ProxyProtocol).
type ProxyProtocol struct {
	// Trusted are the networks of the proxies. A connection from one of
	// them must begin with a PROXY header (version 1 or 2) within
	// Config.HeaderReadTimeout of its accept; the header's source address
	// becomes the connection's remote address, and TLS and HTTP begin
	// after it. Any other connection is served with its own address, and
	// is closed if it begins with a PROXY signature. At least one network
	// is required.
	Trusted []netip.Prefix
}

// normalized checks p and returns a copy whose IPv4-mapped IPv6 prefixes
// are IPv4 prefixes (addresses are compared unmapped).
func (p *ProxyProtocol) normalized() (*ProxyProtocol, error) {
	if len(p.Trusted) == 0 {
		return nil, errors.New("gwist: ProxyProtocol needs at least one trusted network")
	}
	q := &ProxyProtocol{Trusted: make([]netip.Prefix, len(p.Trusted))}
	for i, pfx := range p.Trusted {
		if !pfx.IsValid() {
			return nil, errors.New("gwist: ProxyProtocol: invalid trusted network " + pfx.String())
		}
		if a := pfx.Addr(); a.Is4In6() && pfx.Bits() >= 96 {
			pfx = netip.PrefixFrom(a.Unmap(), pfx.Bits()-96)
		}
		q.Trusted[i] = pfx.Masked()
	}
	return q, nil
}

// trusts reports whether a (the socket's peer) is in a trusted network.
func (p *ProxyProtocol) trusts(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return false
	}
	ip, ok := netip.AddrFromSlice(ta.IP)
	if !ok {
		return false
	}
	ip = ip.Unmap()
	for _, pfx := range p.Trusted {
		if pfx.Contains(ip) {
			return true
		}
	}
	return false
}

// ProxyStats counts what PROXY protocol listeners did with their
// connections' first bytes. Every error closed its connection without a
// byte sent.
type ProxyStats struct {
	// Accepted: headers whose source address became the connection's.
	Accepted uint64
	// Local: valid headers without a client address (version 2 LOCAL, as
	// in a proxy's health checks; AF_UNSPEC; AF_UNIX; version 1 UNKNOWN):
	// the connection keeps its own address.
	Local uint64
	// Untrusted: connections from outside the trusted networks that began
	// with a PROXY signature.
	Untrusted uint64
	// Missing: connections from a trusted network that began with
	// something else than a PROXY signature.
	Missing uint64
	// Malformed: invalid headers (grammar, unsupported transport, over the
	// size limit).
	Malformed uint64
	// Checksum: version 2 headers whose CRC32C did not match.
	Checksum uint64
	// Truncated: connections closed by their peer in the middle of a header.
	Truncated uint64
	// Timeout: connections from a trusted network without a complete
	// header within the header timeout, and untrusted ones that stopped in
	// the middle of a signature.
	Timeout uint64
}

type proxyCounters struct {
	accepted, local, untrusted, missing, malformed, checksum, truncated, timeout atomic.Uint64
	log                                                                          lograte.Limiter
}

// ProxyStats counts this server's PROXY protocol outcomes (all zero on a
// listener without ProxyProtocol).
func (s *Server) ProxyStats() ProxyStats {
	p := &s.proxy
	return ProxyStats{Accepted: p.accepted.Load(), Local: p.local.Load(), Untrusted: p.untrusted.Load(),
		Missing: p.missing.Load(), Malformed: p.malformed.Load(), Checksum: p.checksum.Load(),
		Truncated: p.truncated.Load(), Timeout: p.timeout.Load()}
}

var (
	errProxyUntrusted = errors.New("a PROXY header from a source outside the trusted networks")
	errProxyTimeout   = errors.New("no complete PROXY header within the header timeout")
	errProxyTruncated = errors.New("the peer closed the connection in the middle of a PROXY header")
)

// proxyWait is the protocol driver (driver.go) of a connection on a PROXY
// protocol listener until its first bytes are settled: a trusted peer's
// header parsed, or an untrusted peer's first bytes found not to be a
// signature. Then the connection starts TLS or HTTP/1 (h2c included) on the
// bytes that follow, as any other does. Until then nothing is parsed,
// dispatched or written. Loop only.
type proxyWait struct {
	c       *conn
	trusted bool
	seen    bool // bytes arrived
	failed  bool // closed over its header: counted and logged once
}

// waitProxyHeader makes c's first bytes go to a proxyWait. A trusted peer
// has HeaderReadTimeout from the accept for its header; an untrusted one
// keeps the idle timer until bytes arrive.
func (c *conn) waitProxyHeader(pp *ProxyProtocol) {
	p := &proxyWait{c: c, trusted: pp.trusts(c.remote)}
	c.proto = p
	if p.trusted {
		c.setPhase(phaseIdle, c.config().HeaderReadTimeout)
	}
}

func (p *proxyWait) serve() {
	c := p.c
	in := c.input()
	if len(in) == 0 {
		return
	}
	p.seen = true
	if !p.trusted {
		switch match, more := proxyproto.HasSignature(in); {
		case match:
			p.fail(&c.srv.proxy.untrusted, errProxyUntrusted)
		case more:
			if c.phase == phaseIdle { // part of a first line: the header timer
				c.setPhase(phaseHead, c.config().HeaderReadTimeout)
			}
		default:
			p.done()
		}
		return
	}
	h, n, err := proxyproto.Parse(in)
	if errors.Is(err, proxyproto.ErrNeedMore) {
		return
	}
	if err != nil {
		p.fail(p.counterFor(err), err)
		return
	}
	c.consume(n)
	if h.HasAddress() {
		src := h.Source
		c.remote = net.TCPAddrFromAddrPort(netip.AddrPortFrom(src.Addr().Unmap(), src.Port()))
		c.srv.proxy.accepted.Add(1)
	} else {
		c.srv.proxy.local.Add(1)
	}
	p.done()
}

func (p *proxyWait) counterFor(err error) *atomic.Uint64 {
	pc := &p.c.srv.proxy
	switch {
	case errors.Is(err, proxyproto.ErrNoHeader):
		return &pc.missing
	case errors.Is(err, proxyproto.ErrChecksum):
		return &pc.checksum
	}
	return &pc.malformed
}

// done hands the connection to HTTP/1 (which may switch to h2c), after
// TLS on a TLS listener, and serves the input that followed the header.
func (p *proxyWait) done() {
	c := p.c
	c.proto = &c.h1
	ts := c.srv.cfg.TLS
	if c.phase != phaseHead || ts != nil {
		c.setPhase(phaseIdle, c.config().IdleTimeout)
	}
	if ts != nil {
		c.openTLS(ts)
		c.onTLSTraffic()
		return
	}
	c.proto.serve()
}

// fail counts and logs why the connection is closed, and closes it
// without a byte sent: its peer is a misconfigured proxy or is not one.
func (p *proxyWait) fail(counter *atomic.Uint64, err error) {
	p.count(counter, err)
	p.c.abort()
}

// count counts the connection's failure once and logs it, at most one line
// a second per listener.
func (p *proxyWait) count(counter *atomic.Uint64, err error) {
	if p.failed {
		return
	}
	p.failed = true
	c := p.c
	counter.Add(1)
	if ok, held := c.srv.proxy.log.Allow(); ok {
		c.srv.cfg.Logger.Warn("gwist: connection closed over its PROXY protocol header",
			slog.String("error", err.Error()), slog.Any("remote", c.remote),
			slog.Bool("trusted", p.trusted), slog.Uint64("suppressed", held))
	}
}

// readTimeout: an untrusted peer stopped in the middle of what could be a
// signature. Closed at once.
func (p *proxyWait) readTimeout() bool {
	p.fail(&p.c.srv.proxy.timeout, errProxyTimeout)
	return false
}

// goAway runs before an idle close: for a trusted peer outside a drain,
// the header's time is up.
func (p *proxyWait) goAway() {
	if p.trusted && !p.c.srv.draining.Load() {
		p.fail(&p.c.srv.proxy.timeout, errProxyTimeout)
	}
}

// close: a trusted peer that closed in the middle of its header.
func (p *proxyWait) close() {
	if p.trusted && p.seen {
		p.count(&p.c.srv.proxy.truncated, errProxyTruncated)
	}
}

// Nothing is parsed, dispatched or written while waiting.
func (p *proxyWait) collect()             {}
func (p *proxyWait) collectSettled() bool { return false }
func (p *proxyWait) endCallback()         {}
func (p *proxyWait) writable()            {}
func (p *proxyWait) tick(int64)           {}
func (p *proxyWait) queued() bool         { return false }
func (p *proxyWait) quiet() bool          { return true }

var _ protocol = (*proxyWait)(nil)
