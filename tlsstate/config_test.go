package tlsstate

import (
	"crypto/tls"
	"testing"
)

func TestNewServerDefaults(t *testing.T) {
	if _, err := NewServer(Config{}); err == nil {
		t.Error("nil TLS config accepted")
	}
	if _, err := NewServer(Config{TLS: &tls.Config{}}); err == nil {
		t.Error("config without certificates accepted")
	}
	in := serverTLS(t)
	s, err := NewServer(Config{TLS: in})
	if err != nil {
		t.Fatal(err)
	}
	if s.tls == in || s.tls.MinVersion != tls.VersionTLS12 || len(s.tls.NextProtos) != 1 || s.tls.NextProtos[0] != "http/1.1" {
		t.Errorf("defaults not applied to a clone: %+v", s.tls)
	}
	if in.MinVersion != 0 || in.NextProtos != nil {
		t.Error("caller's config was modified")
	}
	if s.timeout != DefaultHandshakeTimeout || s.maxHS < HandshakesPerCPU || s.maxQueue != QueuePerHandshake*s.maxHS {
		t.Errorf("timeout %v maxHS %d maxQueue %d", s.timeout, s.maxHS, s.maxQueue)
	}
	s, _ = NewServer(Config{TLS: serverTLS(t), MaxQueued: -1, MaxHandshakes: 3})
	if s.maxQueue != 0 || s.maxHS != 3 {
		t.Errorf("maxHS %d maxQueue %d", s.maxHS, s.maxQueue)
	}
}
