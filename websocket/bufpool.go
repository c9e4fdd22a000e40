package websocket

import "sync"

// Message buffers come from size-class pools so that a connection between
// messages holds none and a busy one does not allocate per message. A
// buffer is taken when a message needs assembling and given back once the
// application is done with its event (the next Feed). Buffers larger than
// the biggest class are allocated and left to the collector.
var bufClasses = [...]int{1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10}

var bufPools [len(bufClasses)]sync.Pool // of *msgBuf

// msgBuf is a message buffer; the pools hold the box with its slice, so
// taking and giving back costs no allocation.
type msgBuf struct {
	b     []byte
	class int8 // index in bufClasses, -1 for an unpooled buffer
}

// getBuf returns an empty buffer with room for at least n bytes.
func getBuf(n int) *msgBuf {
	for i, c := range bufClasses {
		if n <= c {
			if m, ok := bufPools[i].Get().(*msgBuf); ok {
				return m
			}
			return &msgBuf{b: make([]byte, 0, c), class: int8(i)}
		}
	}
	return &msgBuf{b: make([]byte, 0, n), class: -1}
}

// putBuf gives m back to its pool; nil is ignored.
func putBuf(m *msgBuf) {
	if m == nil || m.class < 0 {
		return
	}
	m.b = m.b[:0]
	bufPools[m.class].Put(m)
}

// growBuf returns a buffer holding m's bytes with room for n more (m
// itself if it has the room; m may be nil), growing by doubling at least
// and to limit (a message limit) at most, so a buffer grows with what
// arrives, never with what a frame header announces.
func growBuf(m *msgBuf, n int, limit int64) *msgBuf {
	var old []byte
	if m != nil {
		old = m.b
		if len(old)+n <= cap(old) {
			return m
		}
	}
	need := len(old) + n
	c := max(2*cap(old), need)
	if int64(c) > limit && int64(need) <= limit {
		c = int(limit)
	}
	nm := getBuf(c)
	nm.b = append(nm.b, old...)
	putBuf(m)
	return nm
}

// size returns the capacity m holds (0 for nil).
func (m *msgBuf) size() int {
	if m == nil {
		return 0
	}
	return cap(m.b)
}

// bytes returns m's bytes (nil for nil).
func (m *msgBuf) bytes() []byte {
	if m == nil {
		return nil
	}
	return m.b
}
