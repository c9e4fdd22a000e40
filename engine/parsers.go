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
func (c *conn) takeParser() *http1.Parser {
	if c.parser == nil {
		c.parser = parserPool.Get().(*http1.Parser)
		c.parser.Limits = c.srv.cfg.Limits
	}
	return c.parser
}

// releaseIdleParser gives the parser back when it holds nothing of a
// request. Loop only, from finishCallback: every callback that may parse
// (input, a TLS handshake result, a batch coming back) ends there.
func (c *conn) releaseIdleParser() {
	if c.parser != nil && c.cur == nil && c.parser.Idle() {
		c.releaseParser()
	}
}

// releaseParser resets the parser and returns it to the pool. Loop only.
func (c *conn) releaseParser() {
	if c.parser == nil {
		return
	}
	c.parser.Reset()
	parserPool.Put(c.parser)
	c.parser = nil
}
