//go:build unix

package engine

import (
	"sync"

	"github.com/gwist/gwist/http1"
)

// An idle keep-alive connection holds no parser: most connections of a
// large server sit between requests, and a parser (with the head buffers it
// grew) is about 300 bytes each. The loop takes one when bytes arrive and
// gives it back when a callback ends between requests. (Giving it back from
// the sweep instead keeps pool traffic off the request path but lets a
// connection ramp hold one parser per connection: measured 1,240 against
// 1,080 B per idle connection at 10k, so the callback does it.)
var parserPool = sync.Pool{New: func() any { return new(http1.Parser) }}

// takeParser returns the connection's parser, taking one from the pool when
// the connection has none. Loop only.
func (d *h1Driver) takeParser() *http1.Parser {
	if d.parser == nil {
		d.parser = parserPool.Get().(*http1.Parser)
		d.parser.Limits = d.c.srv.cfg.Limits
		// The body limit is checked once the head is in (inbody.go): a
		// route may stream its body with a limit of its own, and a refused
		// request is answered through its handler's error path.
		d.parser.DeferBodyLimit = true
	}
	return d.parser
}

// releaseIdleParser gives the parser back when it holds nothing of a
// request. Loop only, from finishCallback: every callback that may parse
// (input, a TLS handshake result, a batch coming back) ends there.
func (d *h1Driver) releaseIdleParser() {
	if d.parser != nil && d.cur == nil && d.parser.Idle() {
		d.releaseParser()
	}
}

// releaseParser resets the parser and returns it to the pool. Loop only.
func (d *h1Driver) releaseParser() {
	if d.parser == nil {
		return
	}
	d.parser.Reset()
	parserPool.Put(d.parser)
	d.parser = nil
}
