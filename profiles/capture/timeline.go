package capture

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// palette holds one colour per GPU (memory solid, utilization dashed in the same colour).
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}

// WriteTimeline draws memory used (GiB, left axis, solid) and utilization (%, right axis,
// dashed) of each GPU over the capture as a self-contained SVG a browser opens.
func WriteTimeline(w io.Writer, title string, tl []Snapshot) error {
	const width, height = 960.0, 420.0
	const left, right, top, bottom = 70.0, 60.0, 50.0, 60.0
	pw, ph := width-left-right, height-top-bottom
	var labels []string
	seen := map[string]bool{}
	maxMem, maxT := 0.0, 0.0
	for _, s := range tl {
		maxT = math.Max(maxT, s.Elapsed.Seconds())
		for _, g := range s.GPUs {
			if !seen[g.Label] {
				seen[g.Label] = true
				labels = append(labels, g.Label)
			}
			maxMem = math.Max(maxMem, float64(g.TotalBytes)/(1<<30))
		}
	}
	if maxMem == 0 {
		maxMem = 1
	}
	if maxT == 0 {
		maxT = 1
	}
	x := func(t float64) float64 { return left + t/maxT*pw }
	yMem := func(gib float64) float64 { return top + ph - gib/maxMem*ph }
	yUtil := func(pct float64) float64 { return top + ph - pct/100*ph }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	// Grid and axes: five steps on each axis.
	for i := 0; i <= 5; i++ {
		f := float64(i) / 5
		y := top + ph - f*ph
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y, left+pw, y)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%.1f</text>`+"\n", left-6, y+4, f*maxMem)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%.0f%%</text>`+"\n", left+pw+6, y+4, f*100)
		tx := left + f*pw
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", tx, top+ph+18, secondsText(f*maxT))
	}
	fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#555"/>`+"\n", left, top, pw, ph)
	fmt.Fprintf(&b, `<text transform="translate(18 %.1f) rotate(-90)" text-anchor="middle">memory used (GiB), solid</text>`+"\n", top+ph/2)
	fmt.Fprintf(&b, `<text transform="translate(%.1f %.1f) rotate(90)" text-anchor="middle">GPU utilization (%%), dashed</text>`+"\n", width-14, top+ph/2)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">time since start</text>`+"\n", left+pw/2, height-14)
	for i, label := range labels {
		colour := palette[i%len(palette)]
		var mem, util []string
		for _, s := range tl {
			for _, g := range s.GPUs {
				if g.Label != label {
					continue
				}
				t := s.Elapsed.Seconds()
				mem = append(mem, fmt.Sprintf("%.1f,%.1f", x(t), yMem(float64(g.UsedBytes)/(1<<30))))
				if g.Utilization != nil {
					util = append(util, fmt.Sprintf("%.1f,%.1f", x(t), yUtil(float64(*g.Utilization))))
				}
			}
		}
		if len(mem) > 0 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"><title>GPU %s memory</title></polyline>`+"\n", colour, strings.Join(mem, " "), html.EscapeString(label))
		}
		if len(util) > 0 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-dasharray="5 4" points="%s"><title>GPU %s utilization</title></polyline>`+"\n", colour, strings.Join(util, " "), html.EscapeString(label))
		}
		lx := left + float64(i)*110
		fmt.Fprintf(&b, `<line x1="%.0f" y1="38" x2="%.0f" y2="38" stroke="%s" stroke-width="3"/><text x="%.0f" y="42">GPU %s</text>`+"\n", lx, lx+20, colour, lx+24, html.EscapeString(label))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func secondsText(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%.1f h", s/3600)
	case s >= 120:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.0f s", s)
}
