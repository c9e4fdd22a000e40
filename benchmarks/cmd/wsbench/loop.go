package main

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gwist/gwist/benchmarks/internal/wsclient"
)

// epoch is the origin of the loops' monotonic timestamps.
var epoch = time.Now()

func now() time.Duration { return time.Since(epoch) }

// loopConn is a connection driven by a loop.
type loopConn struct {
	*wsConn
	msgLen  int           // bytes of the message being received so far
	sentAt  time.Duration // echo: when the burst in flight was sent
	frame   []byte        // echo: the masked frames it sends, built once
	awaited int           // echo: echoes of the burst in flight not yet received
	got     int           // broadcast: messages received
	dead    bool
}

// loop is one epoll loop (one goroutine) driving its share of the
// connections: level-triggered EPOLLIN, one read per ready socket per
// wake-up, frames parsed in place. onMessage runs for every whole data
// message received; it may write to the connection.
type loop struct {
	epfd      int
	byFD      []*loopConn
	conns     []*loopConn
	onMessage func(c *loopConn, size int, at time.Duration)
	stop      atomic.Bool
	dropped   atomic.Int64 // connections lost: read or write error, close frame, protocol error
	scratch   []byte
}

func newLoop(conns []*wsConn, onMessage func(*loopConn, int, time.Duration)) (*loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	l := &loop{epfd: epfd, onMessage: onMessage, scratch: make([]byte, 64<<10)}
	for _, wc := range conns {
		if err := unix.SetNonblock(wc.fd, true); err != nil {
			return nil, err
		}
		if err := wsclient.SetTimeout(wc.fd, 0); err != nil {
			return nil, err
		}
		for wc.fd >= len(l.byFD) {
			l.byFD = append(l.byFD, make([]*loopConn, len(l.byFD)+1024)...)
		}
		c := &loopConn{wsConn: wc}
		l.byFD[wc.fd] = c
		l.conns = append(l.conns, c)
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(wc.fd)}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wc.fd, &ev); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// run waits for and handles events until stop is set.
func (l *loop) run() {
	events := make([]unix.EpollEvent, 512)
	for !l.stop.Load() {
		n, err := unix.EpollWait(l.epfd, events, 50)
		if err != nil && err != unix.EINTR {
			return
		}
		for i := range max(n, 0) {
			if c := l.byFD[events[i].Fd]; c != nil && !c.dead {
				l.readOne(c)
			}
		}
	}
}

// readOne reads what one socket has and handles the whole frames in it.
func (l *loop) readOne(c *loopConn) {
	n, err := unix.Read(c.fd, l.scratch)
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if err != nil || n == 0 {
		l.drop(c)
		return
	}
	at := now()
	b := l.scratch[:n]
	if len(c.buf) > 0 {
		c.buf = append(c.buf, b...)
		b = c.buf
	}
	for {
		f, used, err := wsclient.Parse(b)
		if err != nil {
			l.drop(c)
			return
		}
		if used == 0 {
			break
		}
		b = b[used:]
		switch f.Op {
		case wsclient.OpText, wsclient.OpBinary, wsclient.OpContinuation:
			c.msgLen += len(f.Payload)
			if f.Fin {
				size := c.msgLen
				c.msgLen = 0
				l.onMessage(c, size, at)
			}
		case wsclient.OpPing:
			l.write(c, wsclient.AppendMasked(nil, wsclient.OpPong, f.Payload, [4]byte{9, 8, 7, 6}))
		case wsclient.OpClose:
			l.drop(c)
			return
		}
		if c.dead {
			return
		}
	}
	// Keep the partial frame, in the connection's own buffer.
	if len(b) == 0 {
		c.buf = c.buf[:0]
	} else {
		c.buf = append(c.buf[:0], b...)
	}
}

// write sends b in one non-blocking write; a short write drops the
// connection (the client's messages are small and sent one at a time).
func (l *loop) write(c *loopConn, b []byte) {
	n, err := unix.Write(c.fd, b)
	for err == unix.EINTR {
		n, err = unix.Write(c.fd, b)
	}
	if err != nil || n != len(b) {
		l.drop(c)
	}
}

func (l *loop) drop(c *loopConn) {
	if c.dead {
		return
	}
	c.dead = true
	l.dropped.Add(1)
	_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, c.fd, nil)
}

// close releases the epoll instance (the sockets are closed by their owner).
func (l *loop) close() { unix.Close(l.epfd) }

// split deals conns round-robin into k shares.
func split(conns []*wsConn, k int) [][]*wsConn {
	out := make([][]*wsConn, k)
	for i, c := range conns {
		out[i%k] = append(out[i%k], c)
	}
	return out
}
