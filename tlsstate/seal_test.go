package tlsstate

import (
	"bytes"
	"io"
	"testing"
)

// Seal appends what was pending first, then its own records, after dst's
// bytes, and leaves nothing queued; the client reads the plaintext in the
// order it was written. Before the handshake and after CloseNotify it
// fails like Write.
func TestSeal(t *testing.T) {
	s := newServer(t, Config{})
	pre := s.NewConn(nil)
	defer pre.Release()
	if _, err := pre.Seal(nil, []byte("x")); err != ErrNotEstablished {
		t.Fatalf("Seal before the handshake: %v", err)
	}

	cli, c, m := handshakeByHand(t, s, clientTLS(t))
	defer c.Release()
	first := bytes.Repeat([]byte("queued by Write;"), 2000) // two records
	second := bytes.Repeat([]byte("sealed to dst."), 5000)  // five records
	if err := c.Write(first); err != nil {
		t.Fatal(err)
	}
	prefix := []byte("bytes the caller had")
	out, err := c.Seal(append([]byte(nil), prefix...), second)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, prefix) {
		t.Fatal("Seal changed the bytes before it")
	}
	if c.HasOutbound() {
		t.Fatal("Seal left ciphertext in the outbound queue")
	}
	m.give(out[len(prefix):])
	m.Close() // the client reads what was given, then EOF: a short Seal fails, never hangs
	got := make([]byte, len(first)+len(second))
	if _, err := io.ReadFull(cli, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append(append([]byte(nil), first...), second...)) {
		t.Fatal("the client read the plaintext out of order or changed")
	}

	c.CloseNotify()
	if _, err := c.Seal(nil, []byte("late")); err != ErrClosed {
		t.Fatalf("Seal after CloseNotify: %v", err)
	}
}

// While a Seal runs the outbound queue is its caller's buffer: a
// concurrent AppendOutbound (which the contract rules out, and which the
// engine's write lock prevents) takes nothing from it, so no record is
// stolen from the middle of a Seal and no caller's buffer reaches the pool.
func TestSealOwnsTheQueue(t *testing.T) {
	s := newServer(t, Config{})
	cli, c, m := handshakeByHand(t, s, clientTLS(t))
	defer c.Release()
	stop := make(chan struct{})
	stolen := make(chan int, 1)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				stolen <- n
				return
			default:
			}
			_ = c.HasOutbound()
			n += len(c.AppendOutbound(nil))
		}
	}()
	msg := bytes.Repeat([]byte("0123456789abcdef"), 1024)
	var out []byte
	for range 300 {
		var err error
		if out, err = c.Seal(out, msg); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if n := <-stolen; n != 0 {
		t.Fatalf("AppendOutbound took %d bytes during Seals", n)
	}
	m.give(out)
	m.Close()
	got := make([]byte, len(msg))
	for i := range 300 {
		if _, err := io.ReadFull(cli, got); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("message %d: %v", i, err)
		}
	}
}
