package gwist_test

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Raw is an h2c client made of x/net's Framer, for what a regular client
// does not do (bodies that stall, SETTINGS never acknowledged). A reader
// goroutine records what the server sends per stream.
type h2Raw struct {
	t      *testing.T
	conn   net.Conn
	fr     *xh2.Framer
	wmu    sync.Mutex // serializes frame writes (the reader answers PINGs)
	enc    *hpack.Encoder
	encBuf bytes.Buffer

	mu      sync.Mutex
	status  map[uint32]string              // :status of each stream's response
	heads   map[uint32][]string            // every :status of each stream, 1xx included
	fields  map[uint32][]hpack.HeaderField // the last HEADERS' regular fields
	data    map[uint32]int                 // DATA bytes received per stream
	ended   map[uint32]bool                // END_STREAM received
	rst     map[uint32]xh2.ErrCode
	goAway  *xh2.ErrCode
	closed  bool
	changed chan struct{} // closed and replaced at every frame
}

// dialH2Raw opens an h2c connection by prior knowledge. With ack false it
// never acknowledges the server's SETTINGS.
func dialH2Raw(t *testing.T, addr string, ack bool) *h2Raw {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &h2Raw{t: t, conn: conn, status: map[uint32]string{}, heads: map[uint32][]string{},
		fields: map[uint32][]hpack.HeaderField{}, data: map[uint32]int{}, ended: map[uint32]bool{}, rst: map[uint32]xh2.ErrCode{}, changed: make(chan struct{})}
	c.fr = xh2.NewFramer(conn, conn)
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.enc = hpack.NewEncoder(&c.encBuf)
	if _, err := io.WriteString(conn, xh2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	_ = c.fr.WriteSettings()
	go c.readLoop(ack)
	return c
}

func (c *h2Raw) readLoop(ack bool) {
	for {
		f, err := c.fr.ReadFrame()
		c.mu.Lock()
		switch f := f.(type) {
		case *xh2.SettingsFrame:
			if !f.IsAck() && ack {
				c.write(func() error { return c.fr.WriteSettingsAck() })
			}
		case *xh2.PingFrame:
			if !f.IsAck() {
				c.write(func() error { return c.fr.WritePing(true, f.Data) })
			}
		case *xh2.MetaHeadersFrame:
			if s := f.PseudoValue("status"); s != "" {
				c.status[f.StreamID] = s
				c.heads[f.StreamID] = append(c.heads[f.StreamID], s)
			}
			c.fields[f.StreamID] = f.RegularFields()
			if f.StreamEnded() {
				c.ended[f.StreamID] = true
			}
		case *xh2.DataFrame:
			c.data[f.StreamID] += len(f.Data())
			if f.StreamEnded() {
				c.ended[f.StreamID] = true
			}
		case *xh2.RSTStreamFrame:
			c.rst[f.StreamID] = f.ErrCode
		case *xh2.GoAwayFrame:
			code := f.ErrCode
			c.goAway = &code
		}
		if err != nil {
			c.closed = true
		}
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (c *h2Raw) write(fn func() error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = fn()
}

// postPartial opens stream id with a POST to path announcing length body
// bytes, and sends only first.
func (c *h2Raw) postPartial(id uint32, path string, length int, first []byte) {
	c.write(func() error {
		c.encBuf.Reset()
		for _, hf := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", path},
			{":authority", "localhost"}, {"content-length", strconv.Itoa(length)}} {
			_ = c.enc.WriteField(hpack.HeaderField{Name: hf[0], Value: hf[1]})
		}
		if err := c.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: id, BlockFragment: c.encBuf.Bytes(), EndHeaders: true}); err != nil {
			return err
		}
		return c.fr.WriteData(id, false, first)
	})
}

// request opens stream id with the fields given as name, value pairs
// (pseudo-fields first), ending the stream with them when end.
func (c *h2Raw) request(id uint32, end bool, fields ...string) {
	c.write(func() error {
		c.encBuf.Reset()
		for i := 0; i+1 < len(fields); i += 2 {
			_ = c.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
		}
		return c.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: id, BlockFragment: c.encBuf.Bytes(), EndHeaders: true, EndStream: end})
	})
}

// wait polls what the reader recorded until cond holds (under c.mu), or
// fails after d.
func (c *h2Raw) wait(d time.Duration, what string, cond func() bool) {
	c.t.Helper()
	deadline := time.After(d)
	for {
		c.mu.Lock()
		ok, ch := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			c.t.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}
