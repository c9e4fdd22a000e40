package svgchart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

func render(t *testing.T, c Chart) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(&b); err != nil {
		t.Fatal(err)
	}
	// Must be well-formed XML.
	d := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, b.String())
		}
	}
	return b.String()
}

func TestRenderBarsAndEscaping(t *testing.T) {
	svg := render(t, Chart{
		Title:    "gwist <vs> peers & co",
		Subtitle: "ratio",
		Bars: []Bar{
			{"plaintext: gwist", 1.5},
			{"churn: gwist", 0.5},
			{"h2: gwist", math.NaN()},
			{"idle: gwist", 0},
		},
	})
	for _, want := range []string{"gwist &lt;vs&gt; peers &amp; co", "1.50×", "0.50×", "n/a", "#2e7d32", "#c62828"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if n := strings.Count(svg, "<rect x="); n != 2 {
		t.Errorf("%d bars drawn, want 2 (n/a values get none)", n)
	}
}

func TestAxisRange(t *testing.T) {
	cases := []struct {
		bars []Bar
		want float64
	}{
		{nil, 1},
		{[]Bar{{"", 1.2}}, 1},
		{[]Bar{{"", 3}}, 2},
		{[]Bar{{"", 0.1}}, 4},
		{[]Bar{{"", 1e9}, {"", math.Inf(1)}}, 6},
	}
	for _, c := range cases {
		if got := axisRange(c.bars); got != c.want {
			t.Errorf("axisRange(%v) = %v, want %v", c.bars, got, c.want)
		}
	}
}

func TestBarDirection(t *testing.T) {
	svg := render(t, Chart{Bars: []Bar{{"a", 2}}})
	// With range ±1 the 1× line is in the middle of the plot and a 2× bar
	// reaches the right edge.
	mid := labelWidth + float64(width-labelWidth-rightPad)/2
	if !strings.Contains(svg, fmt.Sprintf(`<rect x="%.1f"`, mid)) {
		t.Errorf("2× bar does not start at the 1× line (x=%v):\n%s", mid, svg)
	}
}
