package http1

import (
	"errors"
	"math"
)

// Streamed bodies. By default Parse accumulates a request's body into
// Request.Body, bounded by Limits.MaxBodyBytes. A caller that wants the body
// as it arrives (an upload larger than memory, say) calls StreamBody right
// after HeadComplete: from then on until MessageComplete each Parse call
// hands out the body bytes it decoded in [Parser.Data], without copying or
// keeping them. Chunk framing is still checked and trailers still land in
// Request.Trailers at MessageComplete.

// ErrNotAtBody is returned by [Parser.StreamBody] and [Parser.BufferBody]
// when the parser is not right after a HeadComplete.
var ErrNotAtBody = errors.New("http1: not at the start of a request body")

// StreamBody makes the body of the request whose head was just completed
// (Parse returned HeadComplete) stream: Parse returns [BodyData] events,
// then MessageComplete, and [Parser.Data] holds the decoded bytes of each
// call. max bounds the body (0 or less: no limit): a Content-Length above
// it is a 413 now, and a chunked body is a 413 as soon as a chunk size makes
// the running total pass it. The Request passed to Parse from here on gets
// no Body, only Trailers.
func (p *Parser) StreamBody(max int64) error {
	if (p.state != stFixed && p.state != stChunked) || p.total != 0 || p.cs != csSize {
		return ErrNotAtBody
	}
	if max <= 0 {
		max = math.MaxInt64
	}
	p.stream, p.lenOver, p.bodyMax = true, false, max
	if p.state == stFixed && p.remaining > max {
		p.err, p.state = errBodyTooLarge, stFailed
		return &p.err
	}
	return nil
}

// BufferBody confirms the default, buffered body for the request whose head
// was just completed, and with DeferBodyLimit set returns the 413 for a
// Content-Length over Limits.MaxBodyBytes now (the parser then stays
// failed), so the caller can answer before sending "100 Continue". Without
// DeferBodyLimit it returns nil: that check was made at the head.
func (p *Parser) BufferBody() error {
	if p.state == stFailed {
		return &p.err
	}
	if p.state != stFixed && p.state != stChunked {
		return ErrNotAtBody
	}
	if p.lenOver {
		p.err, p.state = errBodyTooLarge, stFailed
		return &p.err
	}
	return nil
}

// Data returns the body bytes decoded by the last Parse call of a streamed
// body (after BodyData, and after a MessageComplete that ended one; nil
// otherwise). It is a slice of the buffer passed to that call, valid as
// long as that buffer is: consume it before the caller reuses the buffer.
func (p *Parser) Data() []byte { return p.data }
