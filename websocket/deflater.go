package websocket

import (
	"compress/flate"
	"sync"
)

// deflateTail is what a flush leaves at the end of a compressed message,
// and what RFC 7692 section 7.2.1 has the sender strip.
var deflateTail = [4]byte{0x00, 0x00, 0xff, 0xff}

// Deflater compresses the messages one end sends under permessage-deflate
// (RFC 7692).
//
// With context takeover (the default unless the agreement says
// no_context_takeover for this end) it holds a compress/flate Writer for
// the life of the connection, whose tables cost about 1.2 MB at
// BestSpeed (the default Level), 0.8 MB at DefaultCompression and
// 0.74 MB at HuffmanOnly (measured by TestDeflaterMemory, Go 1.26):
// affordable for a few connections, not for many. Without context
// takeover (DeflateConfig.ServerNoContextTakeover on a server) a Writer
// is taken from a per-level pool for each message and given back after,
// so an idle connection's Deflater is about 50 bytes.
//
// compress/flate at BestSpeed stores inputs of a few bytes uncompressed
// (RFC 7692's section 7.2.3.3 form), which costs 6 bytes over the plain
// frame; a caller may send short messages uncompressed (RSV1 clear)
// instead.
//
// A Deflater is not safe for concurrent use.
type Deflater struct {
	level    int
	takeover bool
	fw       *flate.Writer // held between messages only with takeover
	sink     appendWriter
}

// NewDeflater returns the compressor for one end of a connection: the
// server's when client is false.
func NewDeflater(p DeflateParams, client bool) *Deflater {
	noTakeover := p.ServerNoContextTakeover
	if client {
		noTakeover = p.ClientNoContextTakeover
	}
	return &Deflater{level: flateLevel(p.Level), takeover: !noTakeover}
}

// appendWriter is an io.Writer appending to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// Pools of flate.Writers per level (flate.HuffmanOnly to BestCompression).
var flateWriters [flate.BestCompression - flate.HuffmanOnly + 1]sync.Pool

// AppendMessage appends payload compressed as one unmasked frame (FIN and
// RSV1 set, the flush's trailing 0x00 0x00 0xff 0xff removed) with opcode
// op (OpText or OpBinary) to dst.
func (d *Deflater) AppendMessage(dst []byte, op Opcode, payload []byte) []byte {
	return d.appendMessage(dst, op, payload, false, [4]byte{})
}

// AppendMaskedMessage is AppendMessage for a client: the frame is masked
// with mask. (A client Deflater always compresses with a 32 KiB window: it
// does not honour a client_max_window_bits below 15.)
func (d *Deflater) AppendMaskedMessage(dst []byte, op Opcode, payload []byte, mask [4]byte) []byte {
	return d.appendMessage(dst, op, payload, true, mask)
}

func (d *Deflater) appendMessage(dst []byte, op Opcode, payload []byte, masked bool, mask [4]byte) []byte {
	const reserve = 14 // the longest header
	start := len(dst)
	d.sink.b = append(dst, make([]byte, reserve)...)
	fw := d.writer()
	fw.Write(payload)
	fw.Flush()
	if !d.takeover {
		flateWriters[d.level-flate.HuffmanOnly].Put(fw)
		d.fw = nil
	}
	dst, d.sink.b = d.sink.b, nil
	body := dst[start+reserve:]
	if n := len(body); n >= 4 && [4]byte(body[n-4:]) == deflateTail {
		body = body[:n-4]
	}
	var h [reserve]byte
	hdr := appendHeader(h[:0], bitFIN|bitRSV1|byte(op)&0x0F, masked, len(body))
	if masked {
		hdr = append(hdr, mask[:]...)
		maskBytes(mask, 0, body)
	}
	copy(dst[start:], hdr)
	n := copy(dst[start+len(hdr):], body)
	return dst[:start+len(hdr)+n]
}

// writer returns the flate.Writer for the next message, writing to d.sink.
func (d *Deflater) writer() *flate.Writer {
	if d.fw != nil {
		return d.fw
	}
	fw, _ := flateWriters[d.level-flate.HuffmanOnly].Get().(*flate.Writer)
	if fw == nil {
		fw, _ = flate.NewWriter(&d.sink, d.level) // the level is valid: flateLevel
	} else {
		fw.Reset(&d.sink)
	}
	d.fw = fw
	return fw
}

// Release drops the Deflater's compressor state (for a closed connection);
// a pooled Writer goes back to its pool. The Deflater may be used again,
// starting a fresh context.
func (d *Deflater) Release() {
	if d.fw != nil {
		flateWriters[d.level-flate.HuffmanOnly].Put(d.fw)
		d.fw = nil
	}
}
