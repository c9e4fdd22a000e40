package proxyproto_test

import (
	"errors"
	"fmt"

	"github.com/gwist/gwist/proxyproto"
)

// A connection's first reads, fed to Parse as they arrive: the header, then
// what the connection carries.
func ExampleParse() {
	reads := []string{"PROXY TCP4 203.0.113.9 192.0.2.1 ", "51234 443\r\nGET / HTTP/1.1\r\n"}
	var buf []byte
	for _, r := range reads {
		buf = append(buf, r...)
		h, n, err := proxyproto.Parse(buf)
		if errors.Is(err, proxyproto.ErrNeedMore) {
			fmt.Println("need more")
			continue
		}
		if err != nil {
			fmt.Println("close:", err)
			return
		}
		fmt.Println("client", h.Source, "server", h.Destination)
		fmt.Printf("then %q\n", buf[n:])
	}
	// Output:
	// need more
	// client 203.0.113.9:51234 server 192.0.2.1:443
	// then "GET / HTTP/1.1\r\n"
}

// A version 2 header with the LOCAL command (a proxy's health check): valid,
// without an address, so the connection's own applies.
func ExampleParse_local() {
	b := []byte("\r\n\r\n\x00\r\nQUIT\n\x20\x00\x00\x00GET /readyz HTTP/1.1\r\n")
	h, n, err := proxyproto.Parse(b)
	fmt.Println(h.Version, h.Local, h.HasAddress(), n, err)
	// Output: 2 true false 16 <nil>
}

// HasSignature tells whether a peer that is not trusted tries to send a
// header.
func ExampleHasSignature() {
	for _, s := range []string{"GET / HTTP/1.1\r\n", "PROXY TCP4 ", "PRO"} {
		match, more := proxyproto.HasSignature([]byte(s))
		fmt.Printf("%q match=%v more=%v\n", s, match, more)
	}
	// Output:
	// "GET / HTTP/1.1\r\n" match=false more=false
	// "PROXY TCP4 " match=true more=false
	// "PRO" match=false more=true
}
