package http2_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/http2"
	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// A client's preface, SETTINGS and one GET, fed to a Conn; the request is
// answered on the spot and the response frames read back.
func ExampleConn() {
	// What a client sends (built here with x/net's Framer).
	var wire, block bytes.Buffer
	wire.WriteString(xh2.ClientPreface)
	client := xh2.NewFramer(&wire, nil)
	client.WriteSettings()
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "https"}, {":path", "/hi"}, {":authority", "example.com"}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	client.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndStream: true, EndHeaders: true})

	c := http2.NewConn(http2.Config{}, time.Now())
	in := wire.Bytes()
	for len(in) > 0 {
		n := c.Feed(in)
		in = in[n:]
		for ev, ok := c.Next(); ok; ev, ok = c.Next() {
			if ev.Kind == http2.EventRequest {
				var r http1.Request
				ev.Request.FillHTTP1(&r)
				fmt.Println(r.Method, r.Path, r.Host, r.ProtoMajor)
				c.WriteHeaders(ev.Stream, 200, []http1.HeaderField{{Name: "Content-Type", Value: "text/plain"}}, false)
				c.WriteData(ev.Stream, []byte("hello"), true)
				c.Release(ev.Stream)
			}
		}
		if n == 0 {
			break
		}
	}
	out := c.Output(nil, 0)

	// Read the server's frames back.
	rd := xh2.NewFramer(nil, bytes.NewReader(out))
	rd.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	for {
		f, err := rd.ReadFrame()
		if err != nil {
			break
		}
		switch f := f.(type) {
		case *xh2.MetaHeadersFrame:
			fmt.Println("HEADERS", f.PseudoValue("status"), f.RegularFields()[0].Name)
		case *xh2.DataFrame:
			fmt.Printf("DATA %q end=%v\n", f.Data(), f.StreamEnded())
		default:
			fmt.Println(f.Header().Type)
		}
	}
	// Output:
	// GET /hi example.com 2
	// SETTINGS
	// WINDOW_UPDATE
	// SETTINGS
	// HEADERS 200 content-type
	// DATA "hello" end=true
}
