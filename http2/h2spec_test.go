package http2

import (
	"testing"

	"github.com/gwist/gwist/internal/h2spectest"
)

// TestH2spec runs h2spec in strict mode (plaintext: h2c by prior
// knowledge) against the Conn served over TCP; every case must pass. It
// takes well under a second.
func TestH2spec(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	srv := startTCPServer(t, Config{})
	h2spectest.Run(t, srv.addr())
}
