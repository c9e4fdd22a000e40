package tlsstate

import (
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"testing"
	"time"
)

// nbConn is a server transport written with no tlsstate code: Read waits
// for bytes while blocking is set, otherwise it returns a Temporary
// net.Error. Writes go straight to the client's memConn.
type nbConn struct {
	mu       sync.Mutex
	cond     *sync.Cond
	in       []byte
	blocking bool
	peer     *memConn
}

type tempErr struct{}

func (tempErr) Error() string   { return "would block" }
func (tempErr) Timeout() bool   { return false }
func (tempErr) Temporary() bool { return true }

func (c *nbConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.in) == 0 {
		if !c.blocking {
			return 0, tempErr{}
		}
		c.cond.Wait()
	}
	n := copy(p, c.in)
	c.in = c.in[n:]
	return n, nil
}

func (c *nbConn) feed(b []byte) {
	c.mu.Lock()
	c.in = append(c.in, b...)
	c.cond.Broadcast()
	c.mu.Unlock()
}

func (c *nbConn) Write(p []byte) (int, error)      { c.peer.give(p); return len(p), nil }
func (c *nbConn) Close() error                     { return nil }
func (c *nbConn) LocalAddr() net.Addr              { return noAddr{} }
func (c *nbConn) RemoteAddr() net.Addr             { return noAddr{} }
func (c *nbConn) SetDeadline(time.Time) error      { return nil }
func (c *nbConn) SetReadDeadline(time.Time) error  { return nil }
func (c *nbConn) SetWriteDeadline(time.Time) error { return nil }

// TestPinTemporaryErrorKeepsPartialRecord pins the deprecated crypto/tls
// behaviour tlsstate relies on: after the handshake, a transport Read that
// fails with a net.Error whose Temporary() is true is not sticky, and the
// partial record read so far is kept. If a Go release changes this, this
// test fails and tlsstate's established path must be redesigned.
func TestPinTemporaryErrorKeepsPartialRecord(t *testing.T) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			m := newMemConn()
			defer m.Close()
			sc := &nbConn{blocking: true, peer: m}
			sc.cond = sync.NewCond(&sc.mu)
			cc := clientTLS(t)
			cc.MaxVersion = v
			cli := tls.Client(m, cc)
			srv := tls.Server(sc, serverTLS(t))

			errs := make(chan error, 2)
			go func() { errs <- cli.Handshake() }()
			go func() { errs <- srv.Handshake() }()
			done := 0
			for done < 2 {
				select {
				case err := <-errs:
					if err != nil {
						t.Fatal(err)
					}
					done++
				case <-time.After(100 * time.Microsecond):
				}
				if b := m.take(); len(b) > 0 {
					sc.feed(b)
				}
			}
			sc.mu.Lock()
			sc.blocking = false
			sc.mu.Unlock()

			cli.Write([]byte("pinned"))
			rec := m.take()
			buf := make([]byte, 64)
			sc.feed(rec[:len(rec)/2])
			n, err := srv.Read(buf)
			if n != 0 || !errors.Is(err, tempErr{}) {
				t.Fatalf("half record: Read = %d, %v; want 0 and the transport's error", n, err)
			}
			// Again with nothing new: the transport's error again.
			if _, err := srv.Read(buf); !errors.Is(err, tempErr{}) {
				t.Fatalf("second Read = %v", err)
			}
			sc.feed(rec[len(rec)/2:])
			n, err = srv.Read(buf)
			if err != nil || string(buf[:n]) != "pinned" {
				t.Fatalf("after the rest: %q, %v", buf[:n], err)
			}
			// Writing still works too.
			if _, err := srv.Write([]byte("ok")); err != nil {
				t.Fatal(err)
			}
			if n, err := cli.Read(buf); err != nil || string(buf[:n]) != "ok" {
				t.Fatalf("client got %q, %v", buf[:n], err)
			}
		})
	}
}
