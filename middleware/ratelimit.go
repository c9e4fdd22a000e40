package middleware

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/gwist/gwist"
)

// RateLimitConfig configures RateLimit.
type RateLimitConfig struct {
	// Rate is the sustained rate allowed per client, in requests per
	// second (required, > 0).
	Rate float64
	// Burst is how many requests a client may make at once, the bucket's
	// size (default: Rate rounded up, at least 1).
	Burst int
	// MaxClients bounds the clients tracked at once (default 100,000;
	// about 100 bytes each). When it is reached, clients whose bucket has
	// refilled (idle ones, indistinguishable from new) are forgotten
	// first, then arbitrary ones, down to seven eighths of it; a forgotten
	// client starts again with a full bucket.
	MaxClients int
	// Key names the client (default: its IP address, from the
	// connection). Behind a proxy, return the address the proxy reports
	// (and trust only your proxy's header).
	Key func(c *gwist.Ctx) string
}

// RateLimit allows each client Rate requests per second with bursts of
// Burst (a token bucket per client), and answers 429 Too Many Requests with
// Retry-After (the seconds until a request would be allowed) through the
// error handler beyond that. Memory is bounded by MaxClients.
func RateLimit(cfg RateLimitConfig) gwist.Middleware {
	if !(cfg.Rate > 0) || math.IsInf(cfg.Rate, 0) {
		panic("middleware: RateLimit: Rate must be a positive number")
	}
	if cfg.Burst <= 0 {
		cfg.Burst = max(1, int(math.Ceil(cfg.Rate)))
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = 100_000
	}
	l := newLimiter(cfg)
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			var wait time.Duration
			if cfg.Key != nil {
				wait = l.take(cfg.Key(c))
			} else {
				var buf [64]byte
				wait = l.takeBytes(clientIP(buf[:0], c.RemoteAddr()))
			}
			if wait > 0 {
				c.SetHeader("Retry-After", strconv.FormatInt(int64(math.Ceil(wait.Seconds())), 10))
				return gwist.NewHTTPError(http.StatusTooManyRequests, "")
			}
			return next(c)
		}
	}
}

// clientIP appends the address's IP (without the port) to b.
func clientIP(b []byte, a net.Addr) []byte {
	if ta, ok := a.(*net.TCPAddr); ok {
		if ip, ok := netip.AddrFromSlice(ta.IP); ok {
			return ip.Unmap().AppendTo(b)
		}
	}
	if a == nil {
		return b
	}
	s := a.String()
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	return append(b, s...)
}

func newLimiter(cfg RateLimitConfig) *limiter {
	return &limiter{rate: cfg.Rate, burst: float64(cfg.Burst), max: cfg.MaxClients,
		clients: make(map[string]*bucket), epoch: time.Now()}
}

type bucket struct {
	tokens float64
	last   time.Duration // since limiter.epoch
}

type limiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	max     int
	clients map[string]*bucket
	epoch   time.Time
}

// takeBytes is take without making a string for a known client.
func (l *limiter) takeBytes(key []byte) time.Duration {
	now := time.Since(l.epoch)
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.clients[string(key)]; b != nil {
		return l.spend(b, now)
	}
	return l.spend(l.add(string(key), now), now)
}

// take spends a token of key's bucket, or returns how long until one.
func (l *limiter) take(key string) time.Duration {
	now := time.Since(l.epoch)
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.clients[key]
	if b == nil {
		b = l.add(key, now)
	}
	return l.spend(b, now)
}

func (l *limiter) spend(b *bucket, now time.Duration) time.Duration {
	b.tokens = min(l.burst, b.tokens+(now-b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// add tracks a new client with a full bucket, evicting first when full.
func (l *limiter) add(key string, now time.Duration) *bucket {
	if len(l.clients) >= l.max {
		l.evict(now)
	}
	b := &bucket{tokens: l.burst, last: now}
	l.clients[key] = b
	return b
}

// evict forgets clients whose bucket is full again, then arbitrary ones,
// until at most 7/8 of max remain (so the sweep is paid once per max/8
// new clients).
func (l *limiter) evict(now time.Duration) {
	for k, b := range l.clients {
		if b.tokens+(now-b.last).Seconds()*l.rate >= l.burst {
			delete(l.clients, k)
		}
	}
	for k := range l.clients {
		if len(l.clients) <= l.max-l.max/8-1 {
			break
		}
		delete(l.clients, k)
	}
}
