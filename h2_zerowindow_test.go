package gwist_test

import (
	"bytes"
	"errors"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/gwist/gwist"
)

// An HTTP/2 client that opens a stream with a zero window and never opens
// it holds no handler for ever: after the write timeout the stream is reset
// (CANCEL), the handler's Write fails with ErrStreamWriteTimeout, and the
// connection still serves.
func TestHTTP2ZeroWindowWriteTimeout(t *testing.T) {
	ended := make(chan error, 1)
	app := h2App(gwist.WithWriteTimeout(300 * time.Millisecond))
	app.GET("/flood", func(c *gwist.Ctx) error {
		chunk := bytes.Repeat([]byte("w"), 16<<10)
		for {
			if _, err := c.Write(chunk); err != nil {
				ended <- err
				return err
			}
		}
	})
	nc, err := net.Dial("tcp", startApp(t, app))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fr := http2.NewFramer(nc, nc)
	if _, err := nc.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":path", "/flood"}, {":authority", "x"}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true})
	select {
	case err := <-ended:
		if !errors.Is(err, gwist.ErrStreamWriteTimeout) {
			t.Fatalf("handler ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler is still held by a client whose window is shut")
	}
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("no RST_STREAM: %v", err)
		}
		if rst, ok := f.(*http2.RSTStreamFrame); ok && rst.StreamID == 1 {
			if rst.ErrCode != http2.ErrCodeCancel {
				t.Fatalf("RST_STREAM %v", rst.ErrCode)
			}
			break
		}
	}
	if st := app.Stats(); st.Backpressure.WriteTimeouts < 1 || st.HTTP2.ResetBySelf < 1 {
		t.Fatalf("not counted: %+v %+v", st.Backpressure, st.HTTP2)
	}
}
