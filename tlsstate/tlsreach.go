package tlsstate

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// tlsstate's one reach past crypto/tls's public API: its read buffers,
// reached through unsafe offsets (TrimBuffers and cryptoDrained, trim.go).
// Verified against Go 1.26.8's crypto/tls (conn.go), it relies on:
//
//   - tls.Conn's fields rawInput (a bytes.Buffer: records read from the
//     transport, not yet decrypted), input (a bytes.Reader: the rest of
//     the last application-data record, decrypted) and hand (a
//     bytes.Buffer: handshake bytes not yet processed), found by name and
//     type at init;
//   - crypto/tls growing them again when it next needs them, so that
//     resetting them while empty releases their memory and nothing else;
//   - a Read of an established tls.Conn with all three empty, and nothing
//     in the transport, having nothing to return but the transport's
//     error.
//
// The self-test (probeTLSBuffers) runs at the first NewServer: it feeds a
// fresh server tls.Conn a known partial ClientHello, which crypto/tls must
// leave in hand (the first record's part of the message) and rawInput (the
// next record's first bytes), and checks the buffers at the offsets hold
// exactly that. When the fields are not found or the self-test fails, the
// reach is off (BufferReach says why): TrimBuffers keeps the buffers and
// cryptoDrained reports false, so that Process asks crypto/tls (an extra
// allocation per record). TestBufferReachSelfTest and
// TestTrimBuffersReleases pin it.

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

// bufferReach is on until the layout is missing or the self-test fails.
var bufferReach struct {
	off      atomic.Bool
	selfTest sync.Once
	mu       sync.Mutex
	why      string
}

func init() {
	if !tlsBufferFields.ok {
		turnBufferReachOff("crypto/tls.Conn has no rawInput/input/hand fields of types bytes.Buffer/Reader/Buffer")
	}
}

func turnBufferReachOff(why string) {
	bufferReach.mu.Lock()
	if bufferReach.why == "" {
		bufferReach.why = why
	}
	bufferReach.mu.Unlock()
	bufferReach.off.Store(true)
}

// checkBufferReach runs the self-test once per process (NewServer).
func checkBufferReach() {
	bufferReach.selfTest.Do(func() {
		if err := probeTLSBuffers(tlsBufferFields); err != nil {
			turnBufferReachOff(err.Error())
		}
	})
}

// BufferReach reports whether tlsstate reaches into crypto/tls's read
// buffers (to release them on idle connections, and to skip reads that
// could only block), and if not, why. A self-test at the first NewServer
// decides it; before that, the layout found at start-up does.
func BufferReach() (on bool, why string) {
	if !bufferReach.off.Load() {
		return true, ""
	}
	bufferReach.mu.Lock()
	defer bufferReach.mu.Unlock()
	return false, bufferReach.why
}

// readBuffers returns crypto/tls's read buffers of c's tls.Conn; ok is
// false when there is none yet or the reach is off.
func (c *Conn) readBuffers() (raw *bytes.Buffer, in *bytes.Reader, hand *bytes.Buffer, ok bool) {
	if bufferReach.off.Load() || c.tc == nil {
		return nil, nil, nil, false
	}
	raw, in, hand = buffersAt(c.tc, tlsBufferFields)
	return raw, in, hand, true
}

func buffersAt(tc *tls.Conn, o tlsBufferOffsets) (raw *bytes.Buffer, in *bytes.Reader, hand *bytes.Buffer) {
	base := unsafe.Pointer(tc)
	raw = (*bytes.Buffer)(unsafe.Add(base, o.rawInput))
	in = (*bytes.Reader)(unsafe.Add(base, o.input))
	hand = (*bytes.Buffer)(unsafe.Add(base, o.hand))
	return raw, in, hand
}

// The self-test's input: one handshake record carrying the start of a
// 256-byte ClientHello, then three bytes of the next record's header.
var (
	probeHello = []byte("\x01\x00\x01\x00gwist-probe!") // handshake header + 12 bytes
	probeNext  = []byte{0x16, 0x03, 0x01}
)

// probeTLSBuffers feeds a fresh server tls.Conn the probe's input, after
// which crypto/tls waits for the rest of the message, and checks that the
// buffers at o hold what it must have kept: the message's bytes in hand,
// the next record's in rawInput, nothing in input.
func probeTLSBuffers(o tlsBufferOffsets) error {
	if !o.ok {
		return errors.New("crypto/tls.Conn has no rawInput/input/hand fields of types bytes.Buffer/Reader/Buffer")
	}
	in := append([]byte{0x16, 0x03, 0x01, 0x00, byte(len(probeHello))}, probeHello...)
	tc := tls.Server(&probeTransport{in: append(in, probeNext...)}, &tls.Config{})
	if err := tc.Handshake(); err == nil {
		return errors.New("a partial ClientHello completed a handshake")
	}
	raw, rd, hand := buffersAt(tc, o)
	if !bytes.Equal(raw.Bytes(), probeNext) || rd.Len() != 0 || !bytes.Equal(hand.Bytes(), probeHello) {
		return fmt.Errorf("after a partial ClientHello crypto/tls's buffers read rawInput %q, input %d bytes, hand %q; want %q, 0, %q",
			raw.Bytes(), rd.Len(), hand.Bytes(), probeNext, probeHello)
	}
	return nil
}

// probeTransport gives crypto/tls its input, then EOF.
type probeTransport struct{ in []byte }

func (t *probeTransport) Read(p []byte) (int, error) {
	if len(t.in) == 0 {
		return 0, io.EOF
	}
	n := copy(p, t.in)
	t.in = t.in[n:]
	return n, nil
}

func (t *probeTransport) Write(p []byte) (int, error)      { return len(p), nil }
func (t *probeTransport) Close() error                     { return nil }
func (t *probeTransport) LocalAddr() net.Addr              { return noProbeAddr{} }
func (t *probeTransport) RemoteAddr() net.Addr             { return noProbeAddr{} }
func (t *probeTransport) SetDeadline(time.Time) error      { return nil }
func (t *probeTransport) SetReadDeadline(time.Time) error  { return nil }
func (t *probeTransport) SetWriteDeadline(time.Time) error { return nil }

type noProbeAddr struct{}

func (noProbeAddr) Network() string { return "probe" }
func (noProbeAddr) String() string  { return "probe" }
