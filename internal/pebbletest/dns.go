package pebbletest

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// startDNS serves DNS over TCP (pebble's resolver client uses TCP) on a
// loopback port until the test ends, answering every A question with
// 127.0.0.1 and every other question with no record (pebble asks for AAAA
// too), so that the names under test lead pebble's validations to the
// servers on this machine. It returns the address, for pebble's
// -dnsserver.
func startDNS(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pebbletest: DNS: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				serveDNS(c)
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
				c.Close()
			}()
		}
	}()
	return ln.Addr().String()
}

// serveDNS answers the queries of one TCP connection (RFC 1035 §4.2.2:
// each message after its 2-byte length) until it closes or sends something
// that does not parse.
func serveDNS(c net.Conn) {
	var n [2]byte
	for {
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return
		}
		query := make([]byte, binary.BigEndian.Uint16(n[:]))
		if _, err := io.ReadFull(c, query); err != nil {
			return
		}
		out, ok := answer(query)
		if !ok {
			return
		}
		if _, err := c.Write(binary.BigEndian.AppendUint16(nil, uint16(len(out)))); err != nil {
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// answer builds the response to one query; ok is false for a packet that
// does not parse (it is dropped).
func answer(query []byte) (out []byte, ok bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true,
		RecursionDesired: h.RecursionDesired, RecursionAvailable: true})
	b.EnableCompression()
	if b.StartQuestions() != nil || b.Question(q) != nil || b.StartAnswers() != nil {
		return nil, false
	}
	if q.Type == dnsmessage.TypeA && q.Class == dnsmessage.ClassINET {
		rh := dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 60}
		if b.AResource(rh, dnsmessage.AResource{A: [4]byte{127, 0, 0, 1}}) != nil {
			return nil, false
		}
	}
	out, err = b.Finish()
	return out, err == nil
}
