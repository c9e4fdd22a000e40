package gwist_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gwist/gwist/internal/wstest"
)

// The WebSocket client of these tests is internal/wstest's.
type wsClient = wstest.Client

var (
	dialWS      = wstest.Dial
	dialWSS     = wstest.DialTLS
	wsHandshake = wstest.Handshake
	testMask    = wstest.Mask
)

// rawWSRequest sends a raw handshake request and returns the response.
func rawWSRequest(t *testing.T, addr, req string) (*http.Response, string) {
	t.Helper()
	r := dialRaw(t, addr)
	r.send(req)
	method, _, _ := strings.Cut(req, " ")
	return r.readResponse(method)
}
