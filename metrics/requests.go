package metrics

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gwist/gwist"
)

// Unmatched is the route label of requests no route matched (404, 405,
// automatic OPTIONS, trailing-slash redirects), whatever their path.
const Unmatched = "<unmatched>"

// methods are the method label values; a method not among the first
// numMethods-1 is "OTHER".
var methods = [...]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE", "OTHER"}

const numMethods = len(methods)

func methodIndex(m string) int {
	switch m {
	case "GET":
		return 0
	case "HEAD":
		return 1
	case "POST":
		return 2
	case "PUT":
		return 3
	case "PATCH":
		return 4
	case "DELETE":
		return 5
	case "OPTIONS":
		return 6
	case "CONNECT":
		return 7
	case "TRACE":
		return 8
	}
	return numMethods - 1
}

// statusClasses and protocols label the request counters.
var statusClasses = [...]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

// protocol index: 0 h1, 1 h1 over TLS, 2 h2c, 3 h2 over TLS.
var protocols = [...]struct{ name, tls string }{{"h1", "false"}, {"h1", "true"}, {"h2", "false"}, {"h2", "true"}}

// series holds the counters of one (route, method) pair.
type series struct {
	route, method string
	requests      [len(statusClasses)][len(protocols)]atomic.Uint64
	latency       histogram // ns
	reqSize       histogram // bytes
	respSize      histogram
}

// table maps a request to its series without a lookup by label: a
// shard's slots[(route+1)*numMethods + method], route -1 being the
// unmatched requests. A route has series for its own method (and HEAD for
// a GET route); any other method seen on it (which the router does not let
// happen) counts with its own method.
//
// Each shard has its own series, so that requests running at once on
// different Ps do not write the same cache lines: Observe borrows a shard
// from a sync.Pool, whose per-P caches hand each P the same shard again
// and again (New hands out the shards in turn; it allocates nothing).
// Collect adds the shards up.
type table struct {
	shards []*shard
	next   atomic.Uint32
	pool   sync.Pool // of *shard
}

type shard struct {
	slots []*series
	all   []*series // each series once, in route order: the same order in every shard
}

func (m *Metrics) newSeries(route, method string) *series {
	return &series{route: route, method: method,
		latency:  newHistogram(m.latencyBounds),
		reqSize:  newHistogram(m.sizeBounds),
		respSize: newHistogram(m.sizeBounds),
	}
}

// newShard builds one shard's series for routes.
func (m *Metrics) newShard(routes []gwist.RouteInfo) *shard {
	sh := &shard{slots: make([]*series, (len(routes)+1)*numMethods)}
	for i := range numMethods {
		s := m.newSeries(Unmatched, methods[i])
		sh.slots[i] = s
		sh.all = append(sh.all, s)
	}
	for r, ri := range routes {
		row := sh.slots[(r+1)*numMethods : (r+2)*numMethods]
		own := methodIndex(ri.Method)
		s := m.newSeries(ri.Pattern, methods[own])
		sh.all = append(sh.all, s)
		for i := range row {
			row[i] = s
		}
		if ri.Method == "GET" {
			h := m.newSeries(ri.Pattern, "HEAD")
			sh.all = append(sh.all, h)
			row[methodIndex("HEAD")] = h
		}
	}
	return sh
}

// Routes implements gwist.Observer: it builds the table, once, when the
// App starts, with a shard per P.
func (m *Metrics) Routes(routes []gwist.RouteInfo) {
	t := &table{shards: make([]*shard, max(runtime.GOMAXPROCS(0), 1))}
	for i := range t.shards {
		t.shards[i] = m.newShard(routes)
	}
	t.pool.New = func() any { return t.shards[int(t.next.Add(1))%len(t.shards)] }
	m.table.Store(t)
}

// Observe implements gwist.Observer: a handful of atomic adds.
func (m *Metrics) Observe(o gwist.Observation) {
	t := m.table.Load()
	if t == nil {
		return
	}
	sh := t.pool.Get().(*shard)
	i := (o.Route+1)*numMethods + methodIndex(o.Method)
	if uint(i) >= uint(len(sh.slots)) {
		i = methodIndex(o.Method) // not a route of this App: unmatched
	}
	s := sh.slots[i]
	class := o.Status/100 - 1
	if uint(class) >= uint(len(statusClasses)) {
		class = len(statusClasses) - 1 // outside 100-599: 5xx
	}
	proto := 0
	if o.ProtoMajor == 2 {
		proto = 2
	}
	if o.TLS {
		proto++
	}
	s.requests[class][proto].Add(1)
	s.latency.observe(m.latencyBounds, int64(o.Duration))
	s.reqSize.observe(m.sizeBounds, o.BytesIn)
	s.respSize.observe(m.sizeBounds, o.BytesOut)
	t.pool.Put(sh)
}
