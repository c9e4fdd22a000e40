// Package svgchart draws the benchmark runner's ratio chart as a small,
// dependency-free SVG: one horizontal bar per ratio on a log2 axis centred
// on 1, growing right when gwist is ahead and left when it is behind.
package svgchart

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
)

// Bar is one ratio to draw. A Value that is not a positive finite number is
// drawn as a labelled gap ("n/a").
type Bar struct {
	Label string
	Value float64
}

// Chart is a set of ratio bars with a title.
type Chart struct {
	Title    string
	Subtitle string
	Bars     []Bar
}

// Layout, in SVG user units.
const (
	width      = 900
	labelWidth = 330
	rightPad   = 70
	barHeight  = 18
	barGap     = 6
	topPad     = 64
	bottomPad  = 40
)

// axisRange returns the log2 extent of the axis: symmetric around 0, at
// least ±1 (0.5× to 2×), and wide enough for every finite bar (capped at
// ±6, i.e. 1/64× to 64×).
func axisRange(bars []Bar) float64 {
	r := 1.0
	for _, b := range bars {
		if ok(b.Value) {
			r = math.Max(r, math.Ceil(math.Abs(math.Log2(b.Value))))
		}
	}
	return math.Min(r, 6)
}

func ok(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// Render writes the chart as a standalone SVG document.
func (c Chart) Render(w io.Writer) error {
	var b bytes.Buffer
	plotW := float64(width - labelWidth - rightPad)
	height := topPad + len(c.Bars)*(barHeight+barGap) + bottomPad
	r := axisRange(c.Bars)
	x := func(v float64) float64 { // value → x coordinate
		l := math.Max(-r, math.Min(r, math.Log2(v)))
		return labelWidth + (l+r)/(2*r)*plotW
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="22" font-size="16" font-weight="bold">%s</text>`+"\n", esc(c.Title))
	fmt.Fprintf(&b, `<text x="10" y="42" fill="#555555">%s</text>`+"\n", esc(c.Subtitle))
	plotTop, plotBottom := float64(topPad-8), float64(height-bottomPad+4)
	for e := -int(r); e <= int(r); e++ {
		v := math.Pow(2, float64(e))
		tx := x(v)
		stroke, dash := "#dddddd", ` stroke-dasharray="3,3"`
		if e == 0 {
			stroke, dash = "#333333", ""
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"%s/>`+"\n", tx, plotTop, tx, plotBottom, stroke, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555555">%s×</text>`+"\n", tx, plotBottom+16, tick(v))
	}
	for i, bar := range c.Bars {
		y := float64(topPad + i*(barHeight+barGap))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", labelWidth-8, y+barHeight-5, esc(bar.Label))
		if !ok(bar.Value) {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#999999">n/a</text>`+"\n", x(1)+6, y+barHeight-5)
			continue
		}
		x0, x1 := x(1), x(bar.Value)
		fill, anchor, tx := "#2e7d32", "start", math.Max(x0, x1)+4
		if bar.Value < 1 {
			fill, anchor, tx = "#c62828", "end", math.Min(x0, x1)-4
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"><title>%s: %.2f×</title></rect>`+"\n",
			math.Min(x0, x1), y, math.Max(math.Abs(x1-x0), 1), barHeight, fill, esc(bar.Label), bar.Value)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="%s">%.2f×</text>`+"\n", tx, y+barHeight-5, anchor, bar.Value)
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// tick formats an axis value: 0.25, 0.5, 1, 2, 4 ...
func tick(v float64) string {
	if v >= 1 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", v)
}

func esc(s string) string { return html.EscapeString(s) }
