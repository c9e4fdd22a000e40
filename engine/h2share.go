//go:build unix

package engine

// A connection's share of the worker pool. One HTTP/2 connection may carry
// up to MAX_CONCURRENT_STREAMS requests at once; were each to take a
// worker, a handful of connections whose handlers wait on their clients
// (stalled uploads, unread responses) would hold the whole pool, and every
// other client would be answered 503. So at most Config.MaxConnHandlers of
// a connection's handlers run on workers at once; a stream beyond them
// waits, in arrival order, holding only its request (and, for a streamed
// body, at most its flow-control window), until one of them returns.
// HTTP/1 has the same bound in Config.MaxPipelined, and a WebSocket's
// callbacks run one at a time.

// wait queues s until the connection's share has room. Loop only.
func (d *h2Driver) wait(s *h2Stream) {
	s.handler = h2Waiting
	d.waiting = append(d.waiting, s)
	d.c.srv.pipe.shareWaits.Add(1)
}

// unwait takes s out of the queue (it was reset or the connection closed
// while it waited). Loop only.
func (d *h2Driver) unwait(s *h2Stream) {
	for i, w := range d.waiting {
		if w == s {
			d.waiting = append(d.waiting[:i], d.waiting[i+1:]...)
			break
		}
	}
	if len(d.waiting) == 0 {
		d.waiting = nil
	}
}

// handlerReturned notes that s's handler returned: the share it held goes
// to the next stream waiting. Loop only.
func (s *h2Stream) handlerReturned() {
	d := s.d
	onPool := s.handler == h2Running && s.b != nil
	s.handler = h2Returned
	if !onPool {
		return
	}
	d.running--
	for len(d.waiting) > 0 && d.running < d.c.config().MaxConnHandlers && !d.c.closed {
		next := d.waiting[0]
		d.waiting[0] = nil
		d.waiting = d.waiting[1:]
		d.start(next)
	}
	if len(d.waiting) == 0 {
		d.waiting = nil
	}
}
