package tlsstate

import "bytes"

// crypto/tls keeps its read buffers (the raw record buffer, the reader over
// the last record, the handshake message buffer) at their high-water mark
// for the life of a connection. After a handshake that is two buffers sized
// to the ClientHello, about 6 KB with a post-quantum key share: most of an
// idle connection's memory. crypto/tls offers no way to release them, so
// TrimBuffers resets them in place, and only when they are empty; crypto/tls
// allocates them again when the next record arrives.
//
// The buffers are reached past crypto/tls's API (tlsreach.go); when that
// reach is off, TrimBuffers does nothing.

// TrimBuffers releases the empty read buffers crypto/tls holds for an
// established connection; call it when the connection goes idle (not per
// record: they are allocated again on the next read). It reports whether it
// released them; it does nothing while any of them holds bytes, before the
// handshake is done, or when the reach into crypto/tls is off
// (BufferReach). Loop only, like Process.
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

// cryptoDrained reports whether a Read of the established tls.Conn could
// only block: it holds no ciphertext or decrypted bytes and the transport
// none either. Asking crypto/tls instead costs an allocation per call (its
// readFromUntil wraps the transport in a new reader each time). False when
// the reach is off (BufferReach), so that the caller asks crypto/tls.
func (c *Conn) cryptoDrained() bool {
	raw, in, _, ok := c.readBuffers()
	if !ok || raw.Len() != 0 || in.Len() != 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bufferedLocked() == 0
}
