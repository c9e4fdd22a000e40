package wsclient

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/sys/unix"
)

func TestAcceptKeyRFCExample(t *testing.T) {
	// RFC 6455 section 1.3.
	if got := AcceptKey("dGhlIHNhbXBsZSBub25jZQ=="); got != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("AcceptKey = %q", got)
	}
}

// unmask decodes a client frame by hand (header, mask, payload).
func unmask(t *testing.T, b []byte) (op byte, p []byte) {
	t.Helper()
	if b[0]&0x80 == 0 || b[1]&0x80 == 0 {
		t.Fatalf("frame not final or not masked: % x", b[:2])
	}
	n, i := int(b[1]&0x7F), 2
	switch n {
	case 126:
		n, i = int(b[2])<<8|int(b[3]), 4
	case 127:
		n = 0
		for _, c := range b[2:10] {
			n = n<<8 | int(c)
		}
		i = 10
	}
	key := b[i : i+4]
	p = b[i+4:]
	if len(p) != n {
		t.Fatalf("payload %d bytes, header says %d", len(p), n)
	}
	out := make([]byte, n)
	for j := range p {
		out[j] = p[j] ^ key[j&3]
	}
	return b[0] & 0x0F, out
}

func TestAppendMaskedLengths(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 65535, 65536} {
		p := bytes.Repeat([]byte{'a'}, n)
		op, got := unmask(t, AppendMasked(nil, OpBinary, p, [4]byte{1, 2, 3, 4}))
		if op != OpBinary || !bytes.Equal(got, p) {
			t.Fatalf("%d bytes: op %d, payload differs", n, op)
		}
	}
}

// serverFrame builds an unmasked frame as a server sends it.
func serverFrame(op byte, fin bool, p []byte) []byte {
	b := []byte{op}
	if fin {
		b[0] |= 0x80
	}
	switch n := len(p); {
	case n < 126:
		b = append(b, byte(n))
	case n <= 0xFFFF:
		b = append(b, 126, byte(n>>8), byte(n))
	default:
		b = append(b, 127, 0, 0, 0, 0, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, p...)
}

func TestParseWholeAndPartial(t *testing.T) {
	for _, n := range []int{0, 125, 126, 1024, 65535, 65536} {
		p := bytes.Repeat([]byte{'x'}, n)
		b := append(serverFrame(OpText, true, p), 0xEE) // a byte of the next frame
		f, used, err := Parse(b)
		if err != nil || used != len(b)-1 || !f.Fin || f.Op != OpText || !bytes.Equal(f.Payload, p) {
			t.Fatalf("%d bytes: used %d of %d, fin %v op %d err %v", n, used, len(b)-1, f.Fin, f.Op, err)
		}
		for cut := range len(b) - 1 {
			if _, used, err := Parse(b[:cut]); used != 0 || err != nil {
				t.Fatalf("%d bytes cut at %d: used %d err %v, want 0 and nil", n, cut, used, err)
			}
		}
	}
}

func TestParseRejects(t *testing.T) {
	masked := AppendMasked(nil, OpText, []byte("hi"), [4]byte{1, 2, 3, 4})
	if _, _, err := Parse(masked); !errors.Is(err, ErrMaskedServerFrame) {
		t.Fatalf("masked frame: err %v", err)
	}
	huge := []byte{0x82, 127, 0, 0, 0, 0, 0x7F, 0, 0, 0}
	if _, _, err := Parse(huge); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("2 GiB frame: err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(serverFrame(OpBinary, true, []byte("hello")))
	f.Add([]byte{0x81, 126, 0, 200})
	f.Add([]byte{0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, n, err := Parse(b)
		if err != nil && n != 0 {
			t.Fatalf("error with n = %d", n)
		}
		if n > len(b) || len(fr.Payload) > n {
			t.Fatalf("n %d, payload %d, input %d", n, len(fr.Payload), len(b))
		}
	})
}

func dst(t *testing.T, url string) *unix.SockaddrInet4 {
	t.Helper()
	ap := netip.MustParseAddrPort(strings.TrimPrefix(url, "http://"))
	sa, err := Sockaddr(ap)
	if err != nil {
		t.Fatal(err)
	}
	return sa
}

func TestDialAndRoundTripWithGorilla(t *testing.T) {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ws" {
			http.NotFound(w, r)
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			mt, m, err := c.ReadMessage()
			if err != nil || c.WriteMessage(mt, m) != nil {
				return
			}
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	src := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 2}}
	fd, rest, err := Dial(src, dst(t, srv.URL), host, "/ws", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if len(rest) != 0 {
		t.Fatalf("%d bytes after the 101", len(rest))
	}
	if err := RoundTrip(fd, bytes.Repeat([]byte{'m'}, 300), nil, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	_, _, err = Dial(nil, dst(t, srv.URL), host, "/nope", 5*time.Second)
	var se *StatusError
	if !errors.As(err, &se) || se.Code != 404 {
		t.Fatalf("Dial /nope: %v, want a StatusError 404", err)
	}
}

func TestDialRejectsWrongAccept(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Sec-WebSocket-Accept", AcceptKey("some other key"))
		w.WriteHeader(http.StatusSwitchingProtocols)
	}))
	defer srv.Close()
	_, _, err := Dial(nil, dst(t, srv.URL), "x", "/ws", 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "Sec-WebSocket-Accept") {
		t.Fatalf("Dial: %v, want a Sec-WebSocket-Accept mismatch", err)
	}
}
