package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gwist/gwist/benchmarks/internal/wsclient"
)

// wsConn is one open WebSocket connection: its socket and the bytes read
// from it that are not yet a whole frame.
type wsConn struct {
	fd  int
	buf []byte
}

// dialResult is what opening a batch of connections gave.
type dialResult struct {
	conns   []*wsConn
	sources int
	errors  map[string]int64
	status  int // the status of a refused upgrade, if any
	seconds float64
}

// sourceAddrs returns k loopback source addresses 127.R.x.y in a block
// chosen at random per run, so that the previous run's TIME_WAIT sockets
// (which hold their source port for 60 s) do not take this run's ports.
func sourceAddrs(k int) []*unix.SockaddrInet4 {
	r := byte(1 + rand.IntN(254))
	out := make([]*unix.SockaddrInet4, k)
	for i := range out {
		out[i] = &unix.SockaddrInet4{Addr: [4]byte{127, r, byte((i + 1) >> 8), byte(i + 1)}}
	}
	return out
}

// sourcesFor is how many source addresses n connections need: the
// ephemeral range (ip_local_port_range) is the limit per source address
// towards one server address; use at most 80% of it.
func sourcesFor(n int) int {
	per := 28232 * 8 / 10
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		f := strings.Fields(string(b))
		if len(f) == 2 {
			lo, e1 := strconv.Atoi(f[0])
			hi, e2 := strconv.Atoi(f[1])
			if e1 == nil && e2 == nil && hi > lo {
				per = (hi - lo + 1) * 8 / 10
			}
		}
	}
	return max(1, (n+per-1)/per)
}

// openConns opens n WebSocket connections to c.addr's c.path, c.parallel
// at a time, round-robin over the source addresses. The sockets are
// returned blocking; the goroutines that opened them are gone.
func openConns(c config, n int) (dialResult, error) {
	ap, err := netip.ParseAddrPort(c.addr)
	if err != nil {
		return dialResult{}, fmt.Errorf("-addr: %w", err)
	}
	dst, err := wsclient.Sockaddr(ap)
	if err != nil {
		return dialResult{}, err
	}
	k := c.sources
	if k <= 0 {
		k = sourcesFor(n)
	}
	srcs := sourceAddrs(k)
	res := dialResult{sources: k, errors: map[string]int64{}, conns: make([]*wsConn, 0, n)}
	var (
		mu   sync.Mutex
		next atomic.Int64
		wg   sync.WaitGroup
	)
	start := time.Now()
	for range max(1, min(c.parallel, n)) {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				fd, rest, err := wsclient.Dial(srcs[int(i)%k], dst, c.addr, c.path, c.timeout)
				mu.Lock()
				if err != nil {
					kind, status := errKind(err)
					res.errors[kind]++
					if status != 0 {
						res.status = status
					}
				} else {
					res.conns = append(res.conns, &wsConn{fd: fd, buf: rest})
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.seconds = time.Since(start).Seconds()
	return res, nil
}

// errKind names a dial failure for the report.
func errKind(err error) (string, int) {
	var se *wsclient.StatusError
	switch {
	case errors.As(err, &se):
		return "status-" + strconv.Itoa(se.Code), se.Code
	case errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE):
		return "fd-limit", 0
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "no-source-port", 0
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused", 0
	case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ETIMEDOUT) || errors.Is(err, syscall.EINPROGRESS):
		// EINPROGRESS: a blocking connect whose SO_SNDTIMEO ran out.
		return "timeout", 0
	}
	kind := "other"
	if i := strings.Index(err.Error(), ":"); i > 0 {
		kind = err.Error()[:i]
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		kind += "-" + strings.ReplaceAll(errno.Error(), " ", "-")
	}
	return kind, 0
}

// closeAll closes every connection's socket.
func closeAll(conns []*wsConn) {
	for _, c := range conns {
		if c.fd >= 0 {
			unix.Close(c.fd)
			c.fd = -1
		}
	}
}
