package middleware

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gwist/gwist"
)

// RequestIDHeader is the header RequestID reads and sets.
const RequestIDHeader = "X-Request-ID"

// maxRequestIDLen bounds an incoming request ID that is accepted.
const maxRequestIDLen = 128

var (
	requestIDPrefix = newRequestIDPrefix()
	requestIDSeq    atomic.Uint64
)

// newRequestIDPrefix is 8 random bytes, in hex, chosen once per process.
func newRequestIDPrefix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RequestID gives every request an ID: the client's X-Request-ID when it
// is sane (1 to 128 characters among letters, digits and "-_.:"), else a
// new one (a per-process random prefix and a counter: unique, cheap, not
// secret). The ID is stored with c.Set(gwist.RequestIDKey, id) (read it
// with GetRequestID; gwist's own log lines and AccessLog include it) and
// sent back in the X-Request-ID response header. Put it first, so that
// every later middleware sees the ID.
func RequestID() gwist.Middleware {
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			id := c.UnsafeHeader(RequestIDHeader)
			if validRequestID(id) {
				id = strings.Clone(id)
			} else {
				id = newRequestID()
			}
			c.Set(gwist.RequestIDKey, id)
			c.SetHeader(RequestIDHeader, id)
			return next(c)
		}
	}
}

// GetRequestID returns the request's ID set by RequestID, or "".
func GetRequestID(c *gwist.Ctx) string {
	id, _ := c.Get(gwist.RequestIDKey).(string)
	return id
}

func newRequestID() string {
	var b [64]byte
	out := append(b[:0], requestIDPrefix...)
	out = append(out, '-')
	out = strconv.AppendUint(out, requestIDSeq.Add(1), 36)
	return string(out)
}

// validRequestID accepts IDs that are safe to log and echo.
func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch b := id[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '-', b == '_', b == '.', b == ':':
		default:
			return false
		}
	}
	return true
}
