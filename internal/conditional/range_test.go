package conditional

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		in   string
		size int64
		want string // ranges as "start+len;..." or the error
	}{
		{"", 100, ""},
		{"bytes=0-9", 100, "0+10"},
		{"bytes=90-", 100, "90+10"},
		{"bytes=-10", 100, "90+10"},
		{"bytes=-1000", 100, "0+100"},
		{"bytes=95-200", 100, "95+5"},
		{"bytes=0-0,-1", 100, "0+1;99+1"},
		{"bytes= 0-1 , 5-6 ", 100, "0+2;5+2"},
		{"bytes=0-9,100-200", 100, "0+10"},
		{"bytes=100-", 100, "no range overlaps the content"},
		{"bytes=100-200,300-", 100, "no range overlaps the content"},
		{"bytes=-0", 100, "no range overlaps the content"},
		{"bytes=0-", 0, "no range overlaps the content"},
		{"bytes=-5", 0, "no range overlaps the content"},
		{"bytes=5-1", 100, "invalid range"},
		{"bytes=a-b", 100, "invalid range"},
		{"bytes=1", 100, "invalid range"},
		{"bytes=", 100, "invalid range"},
		{"bytes=,", 100, "invalid range"},
		{"bytes=--1", 100, "invalid range"},
		{"bytes=+1-2", 100, "invalid range"},
		{"bytes=99999999999999999999-", 100, "invalid range"},
		{"0-9", 100, "invalid range"},
		{"items=0-9", 100, ""},                                    // another unit: ignored
		{"bytes=0-60,40-99", 100, ""},                             // overlapping beyond the size: whole content
		{"bytes=" + strings.Repeat("0-0,", MaxRanges+1), 100, ""}, // too many
		{"bytes=" + strings.Repeat("0-0,", MaxRanges), 100, strings.TrimSuffix(strings.Repeat("0+1;", MaxRanges), ";")},
	} {
		rs, err := ParseRange(c.in, c.size)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			var parts []string
			for _, r := range rs {
				parts = append(parts, fmt.Sprintf("%d+%d", r.Start, r.Length))
			}
			got = strings.Join(parts, ";")
		}
		if got != c.want {
			t.Errorf("ParseRange(%q, %d) = %q, want %q", c.in, c.size, got, c.want)
		}
	}
	if got := (Range{Start: 10, Length: 5}).ContentRange(100); got != "bytes 10-14/100" {
		t.Errorf("ContentRange: %q", got)
	}
}

// FuzzParseRange checks that every range ParseRange returns lies inside
// the content, is non-empty, and that their sum never exceeds the size.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-9", "bytes=-5", "bytes=5-", "bytes=0-0,2-3,-1", "bytes=9223372036854775807-", "bytes=-9223372036854775807", "bytes=,,,"} {
		f.Add(s, int64(100))
	}
	f.Fuzz(func(t *testing.T, s string, size int64) {
		if size < 0 {
			size = -size
		}
		if size < 0 {
			return
		}
		rs, err := ParseRange(s, size)
		if err != nil && rs != nil {
			t.Fatalf("ranges with an error")
		}
		if len(rs) > MaxRanges {
			t.Fatalf("%d ranges", len(rs))
		}
		var sum int64
		for _, r := range rs {
			if r.Start < 0 || r.Length <= 0 || r.Start+r.Length > size || r.Start+r.Length < r.Start {
				t.Fatalf("%q size %d: range %+v out of bounds", s, size, r)
			}
			sum += r.Length
		}
		if sum > size {
			t.Fatalf("%q: sum %d > size %d", s, sum, size)
		}
	})
}
