package http2

import (
	"bytes"
	"testing"

	"github.com/gwist/gwist/http1"
	xh2 "golang.org/x/net/http2"
)

// Floods of frames that do nothing (empty DATA that does not end its
// stream, WINDOW_UPDATE, PRIORITY) are cut off with ENHANCE_YOUR_CALM past
// MaxIdleFrames in a row; a download whose client sends a WINDOW_UPDATE per
// DATA frame it gets is not.
func TestIdleFrameFloods(t *testing.T) {
	for _, kind := range []string{"empty-data", "window-update", "priority"} {
		t.Run(kind, func(t *testing.T) {
			p := newPeer(t, Config{MaxIdleFrames: 100})
			p.handshake()
			p.request(1, "POST", "/", false)
			p.pump()
			for range 101 {
				switch kind {
				case "empty-data":
					p.fr.WriteData(1, false, nil)
				case "window-update":
					p.fr.WriteWindowUpdate(0, 1)
				case "priority":
					p.fr.WritePriority(3, xh2.PriorityParam{StreamDep: 1, Weight: 1})
				}
			}
			p.pump()
			if p.c.Err() == nil {
				t.Fatal("flood not cut off")
			}
			p.expectGoAway(ErrCodeEnhanceYourCalm)
		})
	}
	t.Run("download", func(t *testing.T) {
		p := newPeer(t, Config{MaxIdleFrames: 100})
		p.handshake()
		p.request(1, "GET", "/", true)
		p.pump()
		body := bytes.Repeat([]byte("d"), 16<<10)
		if err := p.c.WriteHeaders(1, 200, []http1.HeaderField{{Name: "content-type", Value: "x"}}, false); err != nil {
			t.Fatal(err)
		}
		for range 300 { // 300 DATA frames, each acknowledged with two WINDOW_UPDATEs
			if n, err := p.c.WriteData(1, body, false); err != nil || n != len(body) {
				t.Fatalf("WriteData: %d %v", n, err)
			}
			p.pump()
			p.fr.WriteWindowUpdate(0, uint32(len(body)))
			p.fr.WriteWindowUpdate(1, uint32(len(body)))
			p.pump()
			if p.c.Err() != nil {
				t.Fatalf("a download's WINDOW_UPDATEs were taken for a flood: %v", p.c.Err())
			}
		}
	})
}
