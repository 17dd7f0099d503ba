package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
)

// The heat map's geometry, in pixels.
const (
	svgMargin    = 24
	svgLabelW    = 190 // row labels, right-aligned against the grid
	svgHeadH     = 74  // title and subtitle
	svgColLabelH = 96  // rotated column labels
	svgCellW     = 44
	svgCellH     = 28
	svgTotalW    = 64 // the "checked" column
	svgLegendH   = 112
)

// blues is the shading of checked cells, light (few checks) to dark
// (many); a log scale spreads the counts over it.
var blues = [][3]float64{
	{0xde, 0xeb, 0xf7}, {0x9e, 0xca, 0xe1}, {0x42, 0x92, 0xc6}, {0x21, 0x71, 0xb5}, {0x08, 0x30, 0x6b},
}

const (
	colUnexplained = "#ffd60a" // a gap nobody explained: the loudest colour
	colNotHit      = "#fff3bf" // not hit in a short campaign: a pale echo of it, not an alarm
	colViolation   = "#d62728" // border and mark of a violated cell
	colViolated    = "#fde0dc" // its fill: the shade gives way to the alarm
	colText        = "#1b1b1b"
	colMuted       = "#555555"
)

// WriteSVG writes the invariants × attack classes matrix as an SVG heat
// map: a row per invariant, a column per class, each cell shaded on a log
// scale of its checks and labelled with the count; explained gaps hatched
// grey, unexplained gaps yellow (in a short campaign, cells merely not hit
// pale yellow, labelled 0), violated cells red and labelled ✗ with the
// number of violations, not of checks; the total checks of each invariant
// on the right, a legend below, the seed and checks in the title. When the
// report has the SPEC dimensions, a panel below shows them: a row per
// group, a cell per point, shaded by its hits, explained gaps hatched and
// unexplained ones yellow (pale when merely not hit). The same report
// writes the same bytes.
func (r *Report) WriteSVG(w io.Writer) error {
	classes := attack.All()
	gridX := svgMargin + svgLabelW
	gridY := svgMargin + svgHeadH + svgColLabelH
	gridW := len(classes) * svgCellW
	gridH := len(r.Invariants) * svgCellH
	width := gridX + gridW + 12 + svgTotalW + svgMargin
	height := gridY + gridH + svgLegendH + svgMargin
	dp := r.dimPanel()
	width, height = max(width, dp.width()), height+dp.height()
	sc := r.svgScale()

	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-size="12">
<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ececec"/><line x1="0" y1="0" x2="0" y2="6" stroke="#bdbdbd" stroke-width="2"/></pattern></defs>
<rect width="100%%" height="100%%" fill="#ffffff"/>
`, width, height, width, height)
	svgText(&b, svgMargin, svgMargin+18, `font-size="18" font-weight="bold"`,
		fmt.Sprintf("sbxfuzz invariant coverage — seed %d, %d checks", r.Seed, r.Checks))
	svgText(&b, svgMargin, svgMargin+40, `fill="`+colMuted+`"`,
		fmt.Sprintf("sandbox %s · %d ops · %d scenarios · checks of each invariant (row) on ops of each attack class (column), log-scaled",
			r.SUT, r.Ops, r.Scenarios))
	svgText(&b, svgMargin, svgMargin+58, `fill="`+colMuted+`"`, r.svgVerdict())

	for j, c := range classes {
		x := gridX + j*svgCellW + svgCellW/2
		fmt.Fprintf(&b, `<text transform="translate(%d,%d) rotate(-50)" font-size="12" fill="%s">%s</text>`+"\n",
			x+4, gridY-6, colText, esc(c.String()))
	}
	svgText(&b, gridX+gridW+12+svgTotalW/2, gridY-8, `text-anchor="middle" font-weight="bold"`, "checked")

	for i, row := range r.Invariants {
		y := gridY + i*svgCellH
		svgText(&b, gridX-8, y+svgCellH/2+4, `text-anchor="end" font-size="13"`, row.ID)
		for j, c := range classes {
			r.svgCell(&b, gridX+j*svgCellW, y, row, c.String(), sc)
		}
		svgText(&b, gridX+gridW+12+svgTotalW-4, y+svgCellH/2+4, `text-anchor="end" font-weight="bold"`, compact(row.Checked))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#9e9e9e"/>`+"\n", gridX, gridY, gridW, gridH)
	r.svgLegend(&b, gridX, gridY+gridH+28, sc)
	if dp != nil {
		dp.write(&b, r, gridY+gridH+svgLegendH)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// svgVerdict is the subtitle's second line: findings, gaps, invariants
// checked and mutants killed.
func (r *Report) svgVerdict() string {
	un := len(r.UnexplainedGaps())
	s := fmt.Sprintf("%s · %d gaps (%d explained, %s) · %d of %d invariants checked",
		plural(len(r.Findings), "finding"), len(r.Gaps), len(r.Gaps)-un, r.unexplainedCount(nil, un), r.invariantsChecked(), len(r.Invariants))
	if r.HasDimensions() {
		dun := len(r.UnexplainedDimensionGaps())
		s += fmt.Sprintf(" · %d dimension points unhit (%s)", len(r.DimensionGaps), r.unexplainedCount(nil, dun))
	}
	if r.Mutants != nil {
		s += fmt.Sprintf(" · %d of %d mutants killed", len(r.Mutants)-len(r.Survivors()), len(r.Mutants))
	}
	return s
}

// scale maps a count in [lo, hi] onto [0, 1], logarithmically.
type scale struct{ lo, hi uint64 }

func (s scale) at(n uint64) float64 {
	if s.hi <= s.lo {
		return 1
	}
	return math.Log(float64(n)/float64(s.lo)) / math.Log(float64(s.hi)/float64(s.lo))
}

// svgScale spans the counts of the checked cells, so the shading uses its
// whole range however many checks the campaign ran.
func (r *Report) svgScale() scale {
	s := scale{lo: math.MaxUint64, hi: 1}
	for _, row := range r.Invariants {
		for _, n := range row.ByClass {
			if n > 0 {
				s.lo, s.hi = min(s.lo, n), max(s.hi, n)
			}
		}
	}
	s.lo = min(s.lo, s.hi)
	return s
}

func (r *Report) svgCell(b *strings.Builder, x, y int, row InvariantRow, class string, sc scale) {
	n := row.ByClass[class]
	v, known, marked := r.violated(row, class)
	tip := fmt.Sprintf("%s × %s: %d checks", row.ID, class, n)
	fill, label, dark := "", compact(n), false
	switch g, isGap := r.gapAt(row.ID, class); {
	case isGap && g.Explained:
		fill, label = "url(#hatch)", "n/a"
		tip += " — " + g.Explanation
	case n == 0 && !r.Full():
		fill = colNotHit
		tip += " — " + r.unexplained()
	case n == 0:
		fill, label = colUnexplained, "GAP"
		tip += " — an unexplained gap"
	default:
		t := sc.at(n)
		fill, dark = shade(t), t > 0.6
	}
	if known && v > 0 {
		tip += fmt.Sprintf(", %d violations", v)
	} else if marked {
		tip += ", violated"
	}
	fmt.Fprintf(b, `<g><title>%s</title><rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ffffff"/>`,
		esc(tip), x, y, svgCellW, svgCellH, fill)
	ink, weight := colText, ""
	switch {
	case dark:
		ink = "#ffffff"
	case label == "n/a":
		ink = colMuted
	case label == "GAP":
		weight = ` font-weight="bold"`
	}
	if marked {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="%s" stroke-width="3"/>`,
			x+2, y+2, svgCellW-4, svgCellH-4, colViolated, colViolation)
		label, ink, weight = violationLabel(v, known), colViolation, ` font-weight="bold"`
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" font-size="10" fill="%s"%s>%s</text></g>`+"\n",
		x+svgCellW/2, y+svgCellH/2+4, ink, weight, esc(label))
}

// svgLegend draws the shading scale with its decades, and the swatches of
// the marks.
func (r *Report) svgLegend(b *strings.Builder, x, y int, sc scale) {
	const barW, barH, steps = 300, 14, 60
	svgText(b, x, y, `font-weight="bold"`, "checks per cell (log scale)")
	for i := range steps {
		t := (float64(i) + 0.5) / steps
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", x+i*barW/steps, y+8, barW/steps+1, barH, shade(t))
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#9e9e9e"/>`+"\n", x, y+8, barW, barH)
	tick := func(n uint64) {
		tx := x + int(math.Round(sc.at(n)*barW))
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`+"\n", tx, y+8+barH, tx, y+8+barH+4, colText)
		svgText(b, tx, y+8+barH+16, `text-anchor="middle" font-size="10"`, compact(n))
	}
	tick(sc.lo)
	for d := uint64(1); d <= sc.hi && d <= math.MaxUint64/10; d *= 10 {
		if t := sc.at(d); t > 0.12 && t < 0.88 { // a decade clear of the ends
			tick(d)
		}
	}
	if sc.hi > sc.lo {
		tick(sc.hi)
	}
	sx := x + barW + 40
	swatch := func(dy int, fill, stroke, label, text string) {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="28" height="18" fill="%s" stroke="%s" stroke-width="%s"/>`+"\n",
			sx, y-4+dy, fill, stroke, map[bool]string{true: "3", false: "1"}[stroke == colViolation])
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" font-size="9" fill="%s">%s</text>`+"\n", sx+14, y+9+dy, colText, esc(label))
		svgText(b, sx+36, y+9+dy, "", text)
	}
	swatch(0, "url(#hatch)", "#9e9e9e", "n/a", "gap that cannot be filled: the invariant does not apply to that class (see the report's gap table)")
	if r.Full() {
		swatch(24, colUnexplained, "#9e9e9e", "GAP", "unexplained gap: no check reached the cell, and the generators should")
	} else {
		swatch(24, colNotHit, "#9e9e9e", "0", fmt.Sprintf("%s: a short campaign; only %d checks or more call that a gap", r.unexplained(), FullChecks))
	}
	swatch(48, colViolated, colViolation, "✗N", "violated: N of the cell's checks failed (its checks: the tooltip)")
}

// violationLabel is the label of a violated cell: ✗ and the number of
// violations, never the number of checks; ✗ alone when the report knows
// only that a finding came from the cell (a run's summary).
func violationLabel(v uint64, known bool) string {
	if !known {
		return "✗"
	}
	return "✗" + compact(v)
}

func svgText(b *strings.Builder, x, y int, attrs, s string) {
	if attrs != "" {
		attrs = " " + attrs
	}
	fmt.Fprintf(b, `<text x="%d" y="%d"%s>%s</text>`+"\n", x, y, attrs, esc(s))
}

// esc escapes s for XML character data and attribute values.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // writing to a Builder never fails
	return b.String()
}

// shade maps t in [0, 1] onto the blues, linearly between its stops.
func shade(t float64) string {
	t = math.Min(math.Max(t, 0), 1) * float64(len(blues)-1)
	i := min(int(t), len(blues)-2)
	f := t - float64(i)
	var c [3]int
	for k := range c {
		c[k] = int(math.Round(blues[i][k] + (blues[i+1][k]-blues[i][k])*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// compact writes a count in at most five characters: 950, 9.5k, 95k, 1.2M.
func compact(n uint64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1e3)) + "k"
	case n < 999_500:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n < 10_000_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1e6)) + "M"
	case n < 999_500_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%.0fG", float64(n)/1e9)
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }
