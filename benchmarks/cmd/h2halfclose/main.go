// Command h2halfclose is an h2c (prior knowledge) client that asks for a
// large response, opens its flow-control windows wide, shuts its write
// side (a FIN, as a client done sending would) and counts the body bytes
// that still arrive. It compares what servers do with HTTP/2 output still
// owed at a client's half-close (docs/operations.md, "A client's
// half-close"; RFC 9113 says nothing of it).
//
//	h2halfclose 127.0.0.1:8080 '/download?bytes=33554432'
package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: h2halfclose HOST:PORT PATH")
		os.Exit(2)
	}
	addr, path := os.Args[1], os.Args[2]
	c, err := net.Dial("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "h2halfclose:", err)
		os.Exit(1)
	}
	tc := c.(*net.TCPConn)
	_ = tc.SetReadBuffer(64 << 10) // the response cannot all sit in the kernel
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fr := http2.NewFramer(c, c)
	must(c.Write([]byte(http2.ClientPreface)))
	// No WINDOW_UPDATE can follow the FIN: open both windows to the maximum.
	must0(fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1}))
	must0(fr.WriteWindowUpdate(0, 1<<31-1-65535))
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", addr}, {":path", path}} {
		must0(enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}))
	}
	must0(fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true}))
	time.Sleep(50 * time.Millisecond)
	must0(fr.WriteSettingsAck()) // for the server's SETTINGS, sent by now
	time.Sleep(50 * time.Millisecond)
	must0(tc.CloseWrite())
	var got int
	ended := false
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			fmt.Printf("%s: %d body bytes, end_stream %v, then %v\n", addr, got, ended, err)
			return
		}
		switch f := f.(type) {
		case *http2.DataFrame:
			got += len(f.Data())
			if f.StreamEnded() {
				ended = true
			}
		case *http2.GoAwayFrame:
			fmt.Printf("  GOAWAY %v after %d bytes\n", f.ErrCode, got)
		case *http2.RSTStreamFrame:
			fmt.Printf("  RST_STREAM %v after %d bytes\n", f.ErrCode, got)
		}
	}
}

func must(_ int, err error) { must0(err) }

func must0(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "h2halfclose:", err)
		os.Exit(1)
	}
}
