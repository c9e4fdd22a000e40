package tlsstate

import (
	"crypto/tls"
	"testing"
)

// Every split of a real ClientHello is recognised as complete exactly when
// its last byte arrives.
func TestHelloScannerSplits(t *testing.T) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		cc := clientTLS(t)
		cc.MaxVersion = v
		h := captureHello(t, cc)
		for cut := 0; cut <= len(h); cut++ {
			var sc helloScanner
			st1, _, err := sc.scan(h[:cut])
			st2, _, err2 := sc.scan(h)
			if err != nil || err2 != nil {
				t.Fatalf("cut %d: %v %v", cut, err, err2)
			}
			if (st1 == helloComplete) != (cut == len(h)) || st2 != helloComplete {
				t.Fatalf("cut %d of %d: %v then %v", cut, len(h), st1, st2)
			}
		}
	}
}

// A ClientHello spread over several records, byte-fragmented the way a
// hostile or odd client might send it, is reassembled.
func TestHelloScannerFragmentedRecords(t *testing.T) {
	h := hello13(t)
	msg := h[recordHeaderLen:] // single-record hello: its payload
	var frag []byte
	for i := 0; i < len(msg); i += 7 {
		p := msg[i:min(i+7, len(msg))]
		frag = append(frag, 0x16, 0x03, 0x01, 0, byte(len(p)))
		frag = append(frag, p...)
	}
	var sc helloScanner
	for i := 1; i < len(frag); i++ {
		if st, _, err := sc.scan(frag[:i]); st != helloPartial {
			t.Fatalf("prefix %d: %v %v", i, st, err)
		}
	}
	if st, _, err := sc.scan(frag); st != helloComplete {
		t.Fatalf("whole: %v %v", st, err)
	}
	// crypto/tls accepts the fragmented hello too.
	s := newServer(t, Config{})
	notify, ch := notifier()
	c := s.NewConn(notify)
	defer c.Release()
	if err := c.Feed(frag); err != nil || c.State() != Handshaking {
		t.Fatalf("Feed: %v, state %v", err, c.State())
	}
	waitNotify(t, ch)
	if !c.HasOutbound() {
		t.Fatal("no ServerHello for a fragmented ClientHello")
	}
}
