package http2

import (
	"sync/atomic"

	xh2 "golang.org/x/net/http2"
)

// Counters count what the connections that share them did; they may be
// shared by many connections (Config.Counters) and read from any goroutine.
// A nil *Counters counts nothing.
type Counters struct {
	streamsOpened, resetByPeer, resetBySelf atomic.Uint64
	// goAway counts GOAWAY frames sent, and peerReset and selfReset the
	// RST_STREAM frames received and sent, by error code (codes past
	// ErrCodeHTTP11Required are counted with it).
	goAway, peerReset, selfReset [xh2.ErrCodeHTTP11Required + 1]atomic.Uint64
}

// Stats is a snapshot of Counters.
type Stats struct {
	// StreamsOpened counts the streams clients opened (requests).
	StreamsOpened uint64
	// ResetByPeer counts RST_STREAM frames received; ResetBySelf those
	// sent (refused streams, stream errors, responses the server could not
	// finish).
	ResetByPeer, ResetBySelf uint64
	// GoAwaySent counts GOAWAY frames sent, by error code name
	// ("NO_ERROR" for graceful shutdowns, "PROTOCOL_ERROR",
	// "ENHANCE_YOUR_CALM", ...).
	GoAwaySent map[string]uint64
	// ResetByPeerCode and ResetBySelfCode split ResetByPeer and
	// ResetBySelf by error code name ("CANCEL", "REFUSED_STREAM", ...);
	// codes never seen are absent.
	ResetByPeerCode, ResetBySelfCode map[string]uint64
}

// Snapshot reads the counters.
func (k *Counters) Snapshot() Stats {
	s := Stats{GoAwaySent: map[string]uint64{}, ResetByPeerCode: map[string]uint64{}, ResetBySelfCode: map[string]uint64{}}
	if k == nil {
		return s
	}
	s.StreamsOpened = k.streamsOpened.Load()
	s.ResetByPeer = k.resetByPeer.Load()
	s.ResetBySelf = k.resetBySelf.Load()
	byCode(s.GoAwaySent, &k.goAway)
	byCode(s.ResetByPeerCode, &k.peerReset)
	byCode(s.ResetBySelfCode, &k.selfReset)
	return s
}

// byCode adds the non-zero counts of a per-code array to m by code name.
func byCode(m map[string]uint64, counts *[xh2.ErrCodeHTTP11Required + 1]atomic.Uint64) {
	for code := range counts {
		if n := counts[code].Load(); n > 0 {
			m[xh2.ErrCode(code).String()] = n
		}
	}
}

// Add adds o into s.
func (s *Stats) Add(o Stats) {
	s.StreamsOpened += o.StreamsOpened
	s.ResetByPeer += o.ResetByPeer
	s.ResetBySelf += o.ResetBySelf
	s.GoAwaySent = addByCode(s.GoAwaySent, o.GoAwaySent)
	s.ResetByPeerCode = addByCode(s.ResetByPeerCode, o.ResetByPeerCode)
	s.ResetBySelfCode = addByCode(s.ResetBySelfCode, o.ResetBySelfCode)
}

func addByCode(dst, src map[string]uint64) map[string]uint64 {
	if dst == nil {
		dst = map[string]uint64{}
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

func (k *Counters) noteOpened() {
	if k != nil {
		k.streamsOpened.Add(1)
	}
}

func (k *Counters) noteResetByPeer(code ErrCode) {
	if k != nil {
		k.resetByPeer.Add(1)
		k.peerReset[min(code, xh2.ErrCodeHTTP11Required)].Add(1)
	}
}

func (k *Counters) noteResetBySelf(code ErrCode) {
	if k != nil {
		k.resetBySelf.Add(1)
		k.selfReset[min(code, xh2.ErrCodeHTTP11Required)].Add(1)
	}
}

func (k *Counters) noteGoAway(code ErrCode) {
	if k != nil {
		k.goAway[min(code, xh2.ErrCodeHTTP11Required)].Add(1)
	}
}
