//go:build !race

package gwist_test

// raceEnabled: the race detector slows everything several times over;
// timing checks widen their margins.
const raceEnabled = false
