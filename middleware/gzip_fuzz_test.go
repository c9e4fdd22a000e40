package middleware

import (
	"strings"
	"testing"
)

// FuzzAcceptsGzip feeds arbitrary Accept-Encoding values: no panic, and a
// value that does not mention gzip, x-gzip or "*" is never accepted.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "gzip;q=0", "br, gzip;q=0.5", "*", "x-gzip", "identity", "gzip;q=0.000", ";;,,", "GZIP ; q=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ae string) {
		got := acceptsGzip(ae)
		l := strings.ToLower(ae)
		if got && !strings.Contains(l, "gzip") && !strings.Contains(ae, "*") {
			t.Fatalf("%q accepted", ae)
		}
	})
}

func TestAcceptsGzip(t *testing.T) {
	for ae, want := range map[string]bool{
		"gzip": true, "gzip, br": true, "br, gzip;q=0.5": true, "*": true, "x-gzip": true, "GZip": true,
		"": false, "identity": false, "gzip;q=0": false, "gzip; q=0.000": false, "br": false,
	} {
		if got := acceptsGzip(ae); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", ae, got, want)
		}
	}
}
