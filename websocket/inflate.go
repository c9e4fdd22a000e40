package websocket

import (
	"compress/flate"
	"io"
	"sync"
)

// inflateTail ends every compressed message before inflation: the
// 0x00 0x00 0xff 0xff the sender stripped (RFC 7692 section 7.2.2) and an
// empty final stored block, so the flate reader ends with io.EOF instead
// of waiting for more blocks.
var inflateTail = []byte{0x00, 0x00, 0xff, 0xff, 0x01, 0x00, 0x00, 0xff, 0xff}

// inflater is a Reader's permessage-deflate decompressor. Its flate
// reader (about 40 KiB) is pooled and taken only while a message inflates;
// with context takeover the connection keeps the last window of inflated
// bytes (up to 32 KiB, or 2^max_window_bits) as the next message's
// dictionary, which is all of the LZ77 state a message can refer to.
type inflater struct {
	takeover bool
	winSize  int
	window   []byte // the last winSize bytes inflated (takeover only)
}

func newInflater(p DeflateParams, client bool) *inflater {
	// The peer compresses: as a server we read the client's messages.
	noTakeover, bits := p.ClientNoContextTakeover, p.ClientMaxWindowBits
	if client {
		noTakeover, bits = p.ServerNoContextTakeover, p.ServerMaxWindowBits
	}
	switch {
	case bits < minWindowBits || bits > maxWindowBits:
		bits = maxWindowBits
	case bits == minWindowBits:
		bits = 9 // zlib compresses with a 2^9 window when asked for 2^8
	}
	return &inflater{takeover: !noTakeover, winSize: 1 << bits}
}

// flateSrc reads a message's compressed bytes, then inflateTail. It is an
// io.ByteReader, so flate reads it without a bufio.Reader of its own.
type flateSrc struct {
	a, b []byte
}

func (s *flateSrc) Read(p []byte) (int, error) {
	if len(s.a) == 0 {
		s.a, s.b = s.b, nil
		if len(s.a) == 0 {
			return 0, io.EOF
		}
	}
	n := copy(p, s.a)
	s.a = s.a[n:]
	return n, nil
}

func (s *flateSrc) ReadByte() (byte, error) {
	if len(s.a) == 0 {
		s.a, s.b = s.b, nil
		if len(s.a) == 0 {
			return 0, io.EOF
		}
	}
	c := s.a[0]
	s.a = s.a[1:]
	return c, nil
}

type flateReader struct {
	src flateSrc
	fr  io.ReadCloser
}

var flateReaders sync.Pool

func getFlateReader(src []byte, dict []byte) *flateReader {
	f, _ := flateReaders.Get().(*flateReader)
	if f == nil {
		f = &flateReader{}
		f.src = flateSrc{a: src, b: inflateTail}
		f.fr = flate.NewReaderDict(&f.src, dict)
		return f
	}
	f.src = flateSrc{a: src, b: inflateTail}
	f.fr.(flate.Resetter).Reset(&f.src, dict)
	return f
}

func putFlateReader(f *flateReader) {
	f.src = flateSrc{}
	flateReaders.Put(f)
}

// inflate returns src inflated into a new message buffer, failing with
// CloseMessageTooBig as soon as the output passes limit (a small message
// that inflates without bound stops there), and, for a text message, with
// CloseInvalidPayload at the first chunk that is not valid UTF-8.
func (f *inflater) inflate(src []byte, limit int64, text bool) (*msgBuf, *CloseError) {
	var dict []byte
	if f.takeover {
		dict = f.window
	}
	fr := getFlateReader(src, dict)
	defer putFlateReader(fr)
	var utf utf8State
	out := getBuf(2 * len(src))
	for {
		if len(out.b) == cap(out.b) {
			out = growBuf(out, 1, limit+1)
		}
		room := out.b[len(out.b):cap(out.b)] // growBuf keeps cap within limit+1 (rounded up to a pool class)
		n, err := fr.fr.Read(room)
		if text && !utf.feed(room[:n]) {
			putBuf(out)
			return nil, &CloseError{Code: CloseInvalidPayload, Reason: "invalid UTF-8 in a text message"}
		}
		out.b = out.b[:len(out.b)+n]
		if int64(len(out.b)) > limit {
			putBuf(out)
			return nil, &CloseError{Code: CloseMessageTooBig, Reason: "message larger than " + itoa(int(limit)) + " bytes inflated"}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			putBuf(out)
			return nil, &CloseError{Code: CloseInvalidPayload, Reason: "invalid compressed data"}
		}
	}
	if text && !utf.complete() {
		putBuf(out)
		return nil, &CloseError{Code: CloseInvalidPayload, Reason: "invalid UTF-8 in a text message"}
	}
	if f.takeover {
		f.remember(out.b)
	}
	return out, nil
}

// remember keeps the last winSize bytes of the inflated stream.
func (f *inflater) remember(out []byte) {
	if f.window == nil {
		f.window = make([]byte, 0, f.winSize)
	}
	if len(out) >= f.winSize {
		f.window = append(f.window[:0], out[len(out)-f.winSize:]...)
		return
	}
	if keep := f.winSize - len(out); len(f.window) > keep {
		f.window = f.window[:copy(f.window, f.window[len(f.window)-keep:])]
	}
	f.window = append(f.window, out...)
}
