package http1

// readFixed reads a Content-Length body into r.
func (p *Parser) readFixed(r *Request, buf []byte) (int, Event) {
	take := len(buf)
	if int64(take) > p.remaining {
		take = int(p.remaining)
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
