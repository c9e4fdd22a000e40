package http1

// readFixed reads a Content-Length body into r, or hands it out in p.data
// when it streams.
func (p *Parser) readFixed(r *Request, buf []byte) (int, Event) {
	take := len(buf)
	if int64(take) > p.remaining {
		take = int(p.remaining)
	}
	if p.stream {
		if take == 0 {
			return 0, NeedMore
		}
		p.data = buf[:take]
		p.remaining -= int64(take)
		if p.remaining == 0 {
			p.endMessage()
			return take, MessageComplete
		}
		return take, BodyData
	}
	if len(r.body) == 0 {
		r.body = growBytes(r.body, int(min(r.ContentLength, preallocBody)), int(r.ContentLength))
	}
	r.body = append(growBytes(r.body, take, int(r.ContentLength)), buf[:take]...)
	r.Body = r.body
	p.remaining -= int64(take)
	if p.remaining == 0 {
		p.endMessage()
		return take, MessageComplete
	}
	return take, NeedMore
}
