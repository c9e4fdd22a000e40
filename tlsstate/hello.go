package tlsstate

import "errors"

// Record and buffer sizes.
const (
	recordHeaderLen = 5
	maxPlainRecord  = 16 << 10          // largest plaintext record payload
	maxRecord       = 16<<10 + 2048 + 5 // largest record crypto/tls accepts, with header

	// MaxBuffered is the most ciphertext a Conn holds that crypto/tls has
	// not taken yet: two full records plus 16 KiB. Feed refuses bytes past
	// it with ErrBufferFull.
	MaxBuffered = 2*maxRecord + 16<<10

	recordTypeHandshake  = 0x16
	handshakeClientHello = 1
)

// helloStatus is the verdict of helloScanner.scan.
type helloStatus int

const (
	helloPartial  helloStatus = iota // need more bytes
	helloComplete                    // a whole ClientHello is buffered
	helloBad                         // not a valid start of a TLS handshake
)

// helloScanner looks at the first bytes a client sent and tells when they
// hold a complete ClientHello message, possibly spread over several
// handshake records. It only checks what it must to decide that; crypto/tls
// validates the rest. It is incremental: each call resumes where the last
// one stopped, so feeding a hello byte by byte costs linear time.
// Its offsets are int32 (they stay below MaxBuffered) to keep Conn small.
type helloScanner struct {
	off  int32   // start of the record being scanned
	got  int32   // handshake payload bytes seen in complete records before off
	need int32   // length of the ClientHello with its header; 0 until known
	hdr  [4]byte // handshake message header, as far as seen
}

// scan examines buf, which holds everything received so far (it only ever
// grows between calls). On helloBad it returns the reason and an error.
func (h *helloScanner) scan(buf []byte) (helloStatus, Reason, error) {
	if len(buf) == 0 {
		return helloPartial, ReasonNone, nil
	}
	if buf[0] != recordTypeHandshake {
		return helloBad, ReasonNotTLS, errNotTLS
	}
	for int(h.off) < len(buf) {
		rec := buf[h.off:]
		if rec[0] != recordTypeHandshake {
			return helloBad, ReasonBadRecord, errors.New("non-handshake record inside ClientHello")
		}
		if len(rec) >= 2 && rec[1] != 3 {
			return helloBad, ReasonBadRecord, errors.New("record version is not 3.x")
		}
		if len(rec) < recordHeaderLen {
			return helloPartial, ReasonNone, nil
		}
		n := int(rec[3])<<8 | int(rec[4])
		if n == 0 || n > maxPlainRecord {
			return helloBad, ReasonBadRecord, errors.New("bad handshake record length")
		}
		payload := rec[recordHeaderLen:]
		if len(payload) > n {
			payload = payload[:n]
		}
		// Fill the 4-byte message header from this record's payload.
		got := int(h.got)
		for i := 0; got+i < len(h.hdr) && i < len(payload); i++ {
			h.hdr[got+i] = payload[i]
		}
		seen := got + len(payload)
		if h.need == 0 && seen >= len(h.hdr) {
			if h.hdr[0] != handshakeClientHello {
				return helloBad, ReasonBadRecord, errors.New("first handshake message is not a ClientHello")
			}
			need := len(h.hdr) + (int(h.hdr[1])<<16 | int(h.hdr[2])<<8 | int(h.hdr[3]))
			// The hello and at least one record header must fit.
			if need+recordHeaderLen > MaxBuffered {
				return helloBad, ReasonOverflow, errOverflow
			}
			h.need = int32(need)
		} else if h.need == 0 && seen > 0 && h.hdr[0] != handshakeClientHello {
			return helloBad, ReasonBadRecord, errors.New("first handshake message is not a ClientHello")
		}
		if h.need > 0 && seen >= int(h.need) {
			return helloComplete, ReasonNone, nil
		}
		if len(payload) < n {
			return helloPartial, ReasonNone, nil // rescan this record later
		}
		h.got = int32(seen)
		h.off += int32(recordHeaderLen + n)
	}
	return helloPartial, ReasonNone, nil
}

// looksLikeHTTP reports whether a non-TLS first byte is probably the start
// of a plaintext HTTP request (every method is upper-case ASCII).
func looksLikeHTTP(buf []byte) bool {
	return len(buf) > 0 && buf[0] >= 'A' && buf[0] <= 'Z'
}

// httpOnTLSPort is queued for clients that speak plain HTTP to the TLS
// port, so that a person with curl or a browser sees why.
const httpOnTLSPort = "HTTP/1.0 400 Bad Request\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Content-Length: 51\r\n" +
	"Connection: close\r\n" +
	"\r\n" +
	"This port expects TLS (https://), not plain HTTP.\r\n"

// alertDecodeError is a plaintext fatal decode_error alert record, queued
// when the first records are malformed.
var alertDecodeError = []byte{0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 50}
