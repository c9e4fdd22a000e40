package tlsstate

import (
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
)

// FuzzFeed feeds arbitrary ciphertext, cut into arbitrary pieces, to a
// fresh Conn, driving it like a loop. Nothing may panic or block, and after
// Release no handshake goroutine may remain. cuts gives the piece lengths
// (a zero means one byte); the last cut repeats.
func FuzzFeed(f *testing.F) {
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), []byte{3})
	f.Add([]byte{0x16, 0x03, 0x01, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00}, []byte{1})
	f.Add([]byte{0x16, 0x03, 0x01, 0x00, 0x08, 0x01, 0x00, 0x00, 0x04, 1, 2, 3, 4}, []byte{0})
	f.Add([]byte{0x80, 0x2e, 0x01}, []byte{})
	s := newServer(f, Config{HandshakeTimeout: 5 * time.Second, MaxHandshakes: 4})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		notify, wake := notifier()
		c := s.NewConn(notify)
		var plain []byte
		waits := 0
		for i := 0; len(data) > 0; i++ {
			n := 1
			if len(cuts) > 0 {
				n = max(1, int(cuts[min(i, len(cuts)-1)]))
			}
			n = min(n, len(data))
			err := c.Feed(data[:n])
			data = data[n:]
			if err == nil {
				plain, err = c.Process(plain[:0])
			}
			c.AppendOutbound(nil)
			if err != nil {
				break
			}
			if c.State() == Handshaking && waits < 3 {
				// Let the handshake goroutine consume what it has (a few
				// times only, so that long inputs stay fast).
				waits++
				select {
				case <-wake:
				case <-time.After(2 * time.Millisecond):
				}
			}
		}
		c.Release()
		if !testkit.Eventually(5*time.Second, func() bool { return s.Stats().InFlight == 0 }) {
			t.Fatal("handshake goroutine still running after Release")
		}
	})
}
