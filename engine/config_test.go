package engine

import "testing"

func TestDefaultLoops(t *testing.T) {
	for _, tc := range []struct {
		inline      bool
		procs, want int
	}{
		{true, 1, 1}, {true, 2, 2}, {true, 16, 16},
		{false, 1, 1}, {false, 2, 1}, {false, 3, 1}, {false, 16, 8},
	} {
		if got := defaultLoops(tc.inline, tc.procs); got != tc.want {
			t.Errorf("defaultLoops(inline=%v, %d) = %d, want %d", tc.inline, tc.procs, got, tc.want)
		}
	}
}
