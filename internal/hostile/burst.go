package hostile

import "time"

// An attack opens with a burst: its peers push what they have at once and
// the server works through it at full speed, and a live request meanwhile
// waits its turn behind every busy connection. The steady attack comes
// after; the two are judged apart.

// The usual test of a burst's end, the hostile soak's and cmd/hostile's
// default: the server used under half a core over 300 ms.
const (
	BurstQuietWindow = 300 * time.Millisecond
	BurstQuietCores  = 0.5
)

// Burst is a live probe's requests split at the end of an attack's opening
// burst.
type Burst struct {
	// End is when the burst ended, since the attack started: the end of
	// the first window after the attackers stopped pushing in which the
	// server used less than the cores given. Ended is false when no
	// window was that quiet; then every request counts as the burst's.
	End   time.Duration
	Ended bool
	// During and After sum up the probe's requests that started before
	// and after End.
	During, After Latencies
}

// SplitAtBurst finds the end of an attack's opening burst in the server's
// CPU samples and splits probe's requests there (probe must have kept
// them: ProbeConfig.KeepRequests). attackStart and probeStart are on s's
// clock (Since); pushEnd is when the attackers stopped pushing, since the
// attack started (0: at once).
func (s *CPUSampler) SplitAtBurst(probe ProbeResult, attackStart, probeStart, pushEnd, window time.Duration, cores float64) Burst {
	end, ok := s.quietAt(attackStart+pushEnd, window, cores)
	if !ok {
		return Burst{During: probe.Phase(0, ToEnd)}
	}
	steadyFrom := max(end-probeStart, 0)
	return Burst{End: end - attackStart, Ended: true,
		During: probe.Phase(0, steadyFrom), After: probe.Phase(steadyFrom, ToEnd)}
}
