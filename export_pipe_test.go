package gwist

import "github.com/gwist/gwist/engine"

// PipeStatsForTest sums the engine's read-pause and write-timeout counters
// over the App's listeners (PeakInbound is the largest).
func PipeStatsForTest(a *App) engine.PipeStats {
	a.mu.Lock()
	defer a.mu.Unlock()
	var st engine.PipeStats
	for _, s := range a.servers {
		p := s.PipeStats()
		st.PeakInbound = max(st.PeakInbound, p.PeakInbound)
		st.ReadRearms += p.ReadRearms
		st.InboundCapped += p.InboundCapped
		st.WriteTimeouts += p.WriteTimeouts
	}
	return st
}
