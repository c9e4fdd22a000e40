package tlsstate

import (
	"bytes"
	"crypto/tls"
	"reflect"
	"unsafe"
)

// crypto/tls keeps its read buffers (the raw record buffer, the reader over
// the last record, the handshake message buffer) at their high-water mark
// for the life of a connection. After a handshake that is two buffers sized
// to the ClientHello, about 6 KB with a post-quantum key share: most of an
// idle connection's memory. crypto/tls offers no way to release them, so
// TrimBuffers resets them in place, and only when they are empty; crypto/tls
// allocates them again when the next record arrives.
//
// The fields are found by name and type when the package starts; if a Go
// release changes them, TrimBuffers does nothing (TestTrimBuffersReleases
// fails, so that the change is noticed).

// tlsBufferFields are the offsets of the buffers in tls.Conn; ok is false
// when the layout is not the expected one.
var tlsBufferFields = findTLSBufferFields()

type tlsBufferOffsets struct {
	rawInput, input, hand uintptr
	ok                    bool
}

func findTLSBufferFields() tlsBufferOffsets {
	t := reflect.TypeFor[tls.Conn]()
	field := func(name string, want reflect.Type) (uintptr, bool) {
		f, ok := t.FieldByName(name)
		if !ok || f.Type != want || len(f.Index) != 1 {
			return 0, false
		}
		return f.Offset, true
	}
	var o tlsBufferOffsets
	var ok1, ok2, ok3 bool
	o.rawInput, ok1 = field("rawInput", reflect.TypeFor[bytes.Buffer]())
	o.input, ok2 = field("input", reflect.TypeFor[bytes.Reader]())
	o.hand, ok3 = field("hand", reflect.TypeFor[bytes.Buffer]())
	o.ok = ok1 && ok2 && ok3
	return o
}

// TrimBuffers releases the empty read buffers crypto/tls holds for an
// established connection; call it when the connection goes idle (not per
// record: they are allocated again on the next read). It reports whether it
// released them; it does nothing while any of them holds bytes, before the
// handshake is done, or when this Go release's crypto/tls is laid out
// differently. Loop only, like Process.
func (c *Conn) TrimBuffers() bool {
	switch c.State() {
	case Established, Closing:
	default:
		return false
	}
	raw, in, hand, ok := c.readBuffers()
	if !ok || raw.Len() != 0 || in.Len() != 0 || hand.Len() != 0 {
		return false
	}
	if raw.Cap() == 0 && hand.Cap() == 0 {
		return false
	}
	*raw, *hand = bytes.Buffer{}, bytes.Buffer{}
	in.Reset(nil)
	return true
}

// readBuffers returns crypto/tls's read buffers of c's tls.Conn; ok is
// false when there is none yet or this Go release lays them out otherwise.
func (c *Conn) readBuffers() (raw *bytes.Buffer, in *bytes.Reader, hand *bytes.Buffer, ok bool) {
	if !tlsBufferFields.ok || c.tc == nil {
		return nil, nil, nil, false
	}
	base := unsafe.Pointer(c.tc)
	raw = (*bytes.Buffer)(unsafe.Add(base, tlsBufferFields.rawInput))
	in = (*bytes.Reader)(unsafe.Add(base, tlsBufferFields.input))
	hand = (*bytes.Buffer)(unsafe.Add(base, tlsBufferFields.hand))
	return raw, in, hand, true
}

// cryptoDrained reports whether a Read of the established tls.Conn could
// only block: it holds no ciphertext or decrypted bytes and the transport
// none either. Asking crypto/tls instead costs an allocation per call (its
// readFromUntil wraps the transport in a new reader each time). False when
// the layout is unknown, so that the caller asks crypto/tls.
func (c *Conn) cryptoDrained() bool {
	raw, in, _, ok := c.readBuffers()
	if !ok || raw.Len() != 0 || in.Len() != 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bufferedLocked() == 0
}
