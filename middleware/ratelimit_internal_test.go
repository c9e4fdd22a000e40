package middleware

import (
	"fmt"
	"testing"
)

// TestRateLimitMemoryIsBounded adds ten times more clients than the cap
// and checks the map never holds more than the cap, and that a client
// kept throttled is not the first one forgotten while idle ones exist.
func TestRateLimitMemoryIsBounded(t *testing.T) {
	l := newLimiter(RateLimitConfig{Rate: 0.001, Burst: 1, MaxClients: 100})
	for i := range 1000 {
		l.take(fmt.Sprint("client-", i))
		if n := len(l.clients); n > 100 {
			t.Fatalf("after %d clients: %d tracked, cap 100", i+1, n)
		}
	}
	// Idle clients (full buckets) go before busy ones.
	l = newLimiter(RateLimitConfig{Rate: 0.001, Burst: 2, MaxClients: 10})
	l.take("busy")
	l.take("busy")
	for i := range 9 {
		l.clients[fmt.Sprint("idle-", i)] = &bucket{tokens: 2}
	}
	l.take("newcomer")
	if l.clients["busy"] == nil || l.take("busy") == 0 {
		t.Fatal("the throttled client was forgotten while idle ones were tracked")
	}
}
