//go:build unix

package engine

import (
	"bytes"
	"time"

	"github.com/gwist/gwist/http1"
)

// Load shedding at the connection cap. A connection accepted while the
// ConnLimit is full is not served, but a plaintext client that has sent
// its request is told so: "503 Service Unavailable" with Retry-After, then
// the connection closes (gracefully, so the answer is not lost to a reset).
// Waiting for that request holds a descriptor beyond the cap, so at most
// a few connections (ConnLimit.shedReserve) are shed this way at once, each
// for at most shedTimeout; beyond the reserve, and on TLS or PROXY protocol listeners
// (where an answer needs a handshake or a proxy's header first), a shed
// connection is reset at once, as before.

// shedTimeout bounds how long a shed connection may take to send its
// request line.
const shedTimeout = time.Second

// maxShedReserve bounds how many shed connections may wait for their
// request at once, beyond the cap.
const maxShedReserve = 64

// shedMark is the context a shed connection enters gnet with.
type shedMark struct{ s *Server }

// shedding is the protocol driver (driver.go) of a shed connection: it
// answers the first request line with 503 and closes. Loop only.
type shedding struct{ c *conn }

func (d *shedding) serve() {
	c := d.c
	in := c.input()
	i := bytes.IndexByte(in, '\n')
	if i < 0 {
		if len(in) > c.config().Limits.MaxHeaderBytes {
			c.abort()
		}
		return
	}
	c.stopReading()
	line := bytes.TrimSuffix(in[:i], []byte("\r"))
	c.discardInput()
	if !namesHTTPVersion(line) && !http1.LooksLikeRequestLine(line) {
		c.abort() // not HTTP/1: nothing to answer
		return
	}
	c.out = http1.AppendError(c.out, 503, 1)
	c.closeWhenDone()
}

func (d *shedding) collect()             {}
func (d *shedding) collectSettled() bool { return false }
func (d *shedding) endCallback()         {}
func (d *shedding) writable()            {}
func (d *shedding) tick(int64)           {}
func (d *shedding) queued() bool         { return false }
func (d *shedding) quiet() bool          { return true }
func (d *shedding) readTimeout() bool    { return false }
func (d *shedding) goAway()              {}
func (d *shedding) close()               {}

var _ protocol = (*shedding)(nil)
