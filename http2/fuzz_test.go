package http2

import (
	"bytes"
	"testing"
	"time"

	"github.com/gwist/gwist/http1"
	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// fuzzSeeds are frame sequences that reach the interesting states.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	add := func(fn func(fr *xh2.Framer, enc func(...string) []byte)) {
		var buf, hb bytes.Buffer
		fr := xh2.NewFramer(&buf, nil)
		fr.AllowIllegalWrites = true
		e := hpack.NewEncoder(&hb)
		enc := func(kv ...string) []byte {
			hb.Reset()
			for i := 0; i+1 < len(kv); i += 2 {
				e.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
			}
			return append([]byte(nil), hb.Bytes()...)
		}
		fn(fr, enc)
		seeds = append(seeds, buf.Bytes())
	}
	get := []string{":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a"}
	add(func(fr *xh2.Framer, enc func(...string) []byte) {
		fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: enc(get...), EndStream: true, EndHeaders: true})
	})
	add(func(fr *xh2.Framer, enc func(...string) []byte) {
		fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: enc(":method", "POST", ":scheme", "http", ":path", "/", "content-length", "3"), EndHeaders: true})
		fr.WriteData(1, false, []byte("ab"))
		fr.WriteDataPadded(1, false, []byte("c"), []byte{0, 0})
		fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: enc("x-t", "v"), EndStream: true, EndHeaders: true})
	})
	add(func(fr *xh2.Framer, enc func(...string) []byte) {
		b := enc(get...)
		fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 3, BlockFragment: b[:2]})
		fr.WriteContinuation(3, false, b[2:4])
		fr.WriteContinuation(3, true, b[4:])
		fr.WriteRSTStream(3, ErrCodeCancel)
		fr.WritePing(false, [8]byte{1})
		fr.WriteWindowUpdate(0, 100)
		fr.WriteSettings(xh2.Setting{ID: xh2.SettingInitialWindowSize, Val: 10}, xh2.Setting{ID: xh2.SettingHeaderTableSize, Val: 0})
		fr.WritePriority(5, xh2.PriorityParam{StreamDep: 1})
		fr.WriteGoAway(0, ErrCodeNo, nil)
	})
	return seeds
}

// FuzzConn feeds arbitrary frames after a valid preface and SETTINGS, in
// arbitrary pieces, with an application that answers every request. The
// connection must never panic, and what it holds must stay within its caps.
func FuzzConn(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s, uint8(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		wd := time.AfterFunc(10*time.Second, func() { panic("FuzzConn: one input ran for 10 s (a loop that never ends?)") })
		defer wd.Stop()
		var pre bytes.Buffer
		pre.WriteString(xh2.ClientPreface)
		xh2.NewFramer(&pre, nil).WriteSettings()
		input := append(pre.Bytes(), data...)
		cfg := Config{MaxConcurrentStreams: 8, MaxControlQueued: 64, MaxStreamQueued: 4096, MaxConnQueued: 8192}
		c := NewConn(cfg, time.Unix(0, 0))
		step := int(split)%64 + 1
		var buf []byte
		for len(input) > 0 || len(buf) > 0 {
			k := min(step, len(input))
			buf = append(buf, input[:k]...)
			input = input[k:]
			for {
				n := c.Feed(buf)
				buf = buf[n:]
				fuzzApp(c)
				if n == 0 {
					break
				}
			}
			_ = c.Output(nil, 1000)
			fuzzApp(c)
			checkBounds(t, c, &cfg)
			if k == 0 {
				break
			}
			if len(buf) > c.NeedBytes() {
				t.Fatalf("Feed left %d bytes, more than a frame (%d)", len(buf), c.NeedBytes())
			}
		}
		c.Shutdown()
		for range 100 {
			if len(c.Output(nil, 0)) == 0 {
				break
			}
			fuzzApp(c)
		}
		checkBounds(t, c, &cfg)
	})
}

// fuzzApp answers requests with a small body and consumes all DATA.
func fuzzApp(c *Conn) {
	for {
		ev, ok := c.Next()
		if !ok {
			return
		}
		switch ev.Kind {
		case EventRequest:
			if ev.Stream%4 == 1 {
				c.WriteHeaders(ev.Stream, 200, []http1.HeaderField{{Name: "X-A", Value: "b"}}, false)
				c.WriteData(ev.Stream, bytes.Repeat([]byte("d"), 5000), false)
				c.WriteTrailers(ev.Stream, []http1.HeaderField{{Name: "x-t", Value: "1"}})
				c.Release(ev.Stream)
			}
		case EventData:
			c.Consumed(ev.Stream, len(ev.Data))
			if ev.EndStream && ev.Stream%4 == 3 {
				c.WriteHeaders(ev.Stream, 204, nil, true)
				c.Release(ev.Stream)
			}
		case EventReset, EventTrailers:
			c.Release(ev.Stream)
		}
	}
}

func checkBounds(t *testing.T, c *Conn, cfg *Config) {
	t.Helper()
	if c.queued > cfg.MaxConnQueued || c.queued < 0 {
		t.Fatalf("queued %d", c.queued)
	}
	if c.ctlCount > cfg.MaxControlQueued+2*int(cfg.MaxConcurrentStreams)+8 {
		t.Fatalf("control queue %d frames", c.ctlCount)
	}
	if len(c.streams) > 2*int(cfg.MaxConcurrentStreams) || c.active > int(cfg.MaxConcurrentStreams) || c.handlers < 0 {
		t.Fatalf("streams %d active %d handlers %d", len(c.streams), c.active, c.handlers)
	}
	if c.hb.raw > c.maxBlockBytes {
		t.Fatalf("header block %d bytes", c.hb.raw)
	}
	if c.events.len() != 0 {
		t.Fatal("events left undrained")
	}
}
