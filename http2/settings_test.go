package http2

import (
	"testing"
	"time"

	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// A peer that never acknowledges the server's SETTINGS is cut at
// SettingsTimeout with GOAWAY SETTINGS_TIMEOUT; one that does is not.
func TestSettingsAckTimeout(t *testing.T) {
	start := time.Now()
	p := &peer{t: t, c: NewConn(Config{SettingsTimeout: time.Second}, start), consume: true}
	p.fr = xh2.NewFramer(&p.toSrv, &p.fromSrv)
	p.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	p.enc = hpack.NewEncoder(&p.encBuf)
	p.toSrv.WriteString(xh2.ClientPreface)
	p.fr.WriteSettings()
	p.pump()
	p.frames() // the server's SETTINGS and the ACK of ours; ours is not acknowledged
	p.c.Tick(start.Add(900 * time.Millisecond))
	if p.c.Finished() {
		t.Fatal("failed before the timeout")
	}
	p.c.Tick(start.Add(1100 * time.Millisecond))
	p.expectGoAway(xh2.ErrCodeSettingsTimeout)

	p = newPeer(t, Config{SettingsTimeout: time.Second})
	p.handshake() // acknowledges
	p.c.Tick(time.Now().Add(time.Hour))
	if p.c.Finished() {
		t.Fatalf("acknowledged, failed all the same: %v", p.c.Err())
	}
}
