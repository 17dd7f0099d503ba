package reports

import (
	"fmt"
	"math"
	"strings"
)

// The dimension panel's geometry, in pixels.
const (
	svgDimHeadH   = 52  // the panel's title and subtitle
	svgDimLabelW  = 250 // group labels, right-aligned against the cells
	svgDimTitleH  = 20  // a dimension's heading
	svgDimRowH    = 15
	svgDimCellW   = 13
	svgDimCellH   = 12
	svgDimBlockW  = 5  // between blocks of points (one position of a range)
	svgDimCountW  = 56 // the "hit / reachable" column
	svgDimLegendH = 58
)

// dimPanel lays out the SPEC dimension panel of the heat map: a heading
// per dimension, then a row per group with a cell per point.
type dimPanel struct {
	groups []dimGroup
	gaps   map[[3]string]DimensionGap // by dimension, group, point
	sc     scale
}

func (r *Report) dimPanel() *dimPanel {
	if !r.HasDimensions() {
		return nil
	}
	p := &dimPanel{groups: groupsOf(r.Summary.Dimensions), gaps: map[[3]string]DimensionGap{}, sc: scale{lo: math.MaxUint64, hi: 1}}
	for _, g := range r.DimensionGaps {
		p.gaps[[3]string{g.Dimension, g.Group, g.Point}] = g
	}
	for _, pt := range r.Summary.Dimensions {
		if pt.Hits > 0 {
			p.sc.lo, p.sc.hi = min(p.sc.lo, pt.Hits), max(p.sc.hi, pt.Hits)
		}
	}
	p.sc.lo = min(p.sc.lo, p.sc.hi)
	return p
}

// height is the panel's height, legend included; 0 without a panel.
func (p *dimPanel) height() int {
	if p == nil {
		return 0
	}
	h := svgDimHeadH + svgDimLegendH
	for i, g := range p.groups {
		if i == 0 || g.dim != p.groups[i-1].dim {
			h += svgDimTitleH
		}
		h += svgDimRowH
	}
	return h
}

// width is the panel's width, margins included.
func (p *dimPanel) width() int {
	if p == nil {
		return 0
	}
	w := 0
	for _, g := range p.groups {
		w = max(w, cellsWidth(g.points))
	}
	return svgMargin + svgDimLabelW + w + svgDimCountW + svgMargin
}

// cellsWidth is the width of a group's cells, with a gap between blocks.
func cellsWidth(points []DimensionPoint) int {
	x := 0
	for i := range points {
		x += blockGap(points, i) + svgDimCellW
	}
	return x
}

// blockGap is the gap before point i: a block of points ends where what
// comes before the comma of their names ("low edge, dotted") changes.
func blockGap(points []DimensionPoint, i int) int {
	if i == 0 {
		return 0
	}
	a, _, okA := strings.Cut(points[i-1].Name, ", ")
	b, _, okB := strings.Cut(points[i].Name, ", ")
	if okA && okB && a != b {
		return svgDimBlockW
	}
	return 0
}

// write draws the panel with its top at y.
func (p *dimPanel) write(b *strings.Builder, r *Report, y int) {
	x := svgMargin
	svgText(b, x, y+18, `font-size="16" font-weight="bold"`, "SPEC dimensions: the points the checked scenarios hit")
	un := len(r.UnexplainedDimensionGaps())
	svgText(b, x, y+38, `fill="`+colMuted+`"`, fmt.Sprintf(
		"a row per group, a cell per point, shaded on a log scale of its hits · %d of %d points hit · %d unhit (%d explained, %s)",
		r.dimensionPointsHit(), len(r.Summary.Dimensions), len(r.DimensionGaps), len(r.DimensionGaps)-un, r.unexplainedCount(nil, un)))
	y += svgDimHeadH
	cellsX := x + svgDimLabelW
	for i, g := range p.groups {
		if i == 0 || g.dim != p.groups[i-1].dim {
			svgText(b, x, y+15, `font-size="13" font-weight="bold"`, g.dim)
			if blocks := blockNames(g.points); len(blocks) > 1 {
				svgText(b, cellsX, y+15, `font-size="10" fill="`+colMuted+`"`, "blocks: "+strings.Join(blocks, " · ")+"; a cell per spelling")
			}
			y += svgDimTitleH
		}
		svgText(b, cellsX-8, y+svgDimCellH-2, `text-anchor="end" font-size="11"`, g.name)
		cx := cellsX
		hit, reachable := 0, 0
		for j, pt := range g.points {
			cx += blockGap(g.points, j)
			p.cell(b, cx, y, pt, r)
			cx += svgDimCellW
			if pt.Hits > 0 {
				hit++
			}
			if pt.Unreachable == "" {
				reachable++
			}
		}
		svgText(b, cellsX+cellsWidth(g.points)+8, y+svgDimCellH-2, `font-size="10" fill="`+colMuted+`"`, fmt.Sprintf("%d/%d", hit, reachable))
		y += svgDimRowH
	}
	p.legend(b, cellsX, y+22, r)
}

// blockNames returns what comes before the comma of the points' names,
// once per block, when every name has one.
func blockNames(points []DimensionPoint) []string {
	var out []string
	for _, pt := range points {
		head, _, ok := strings.Cut(pt.Name, ", ")
		if !ok {
			return nil
		}
		if len(out) == 0 || out[len(out)-1] != head {
			out = append(out, head)
		}
	}
	return out
}

// cell draws one point: shaded when hit, hatched when its gap is
// explained, yellow when not (pale yellow when merely not hit in a short
// campaign); its tooltip names it.
func (p *dimPanel) cell(b *strings.Builder, x, y int, pt DimensionPoint, r *Report) {
	tip := fmt.Sprintf("%s: %d hits", pt.String(), pt.Hits)
	fill := shade(p.sc.at(max(pt.Hits, 1)))
	switch g, isGap := p.gaps[[3]string{pt.Dim, pt.Group, pt.Name}]; {
	case isGap && g.Explained:
		fill = "url(#hatch)"
		tip += " — " + g.Explanation
	case isGap && !r.Full():
		fill = colNotHit
		tip += " — " + g.Explanation
	case isGap:
		fill = colUnexplained
		tip += " — an unexplained gap"
	}
	fmt.Fprintf(b, `<g><title>%s</title><rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ffffff"/></g>`+"\n",
		esc(tip), x, y, svgDimCellW, svgDimCellH, fill)
}

// legend explains the panel's cells, in two rows of two.
func (p *dimPanel) legend(b *strings.Builder, x, y int, r *Report) {
	const stride = 330
	unhit := struct{ fill, text string }{colUnexplained, "GAP: never hit, and the generators should"}
	if !r.Full() {
		unhit.fill, unhit.text = colNotHit, r.unexplained()+" (a short campaign: not yet a gap)"
	}
	for i, s := range []struct{ fill, text string }{
		{shade(0), fmt.Sprintf("hit, fewest hits: %s", compact(p.sc.lo))},
		{shade(1), fmt.Sprintf("hit, most hits: %s", compact(p.sc.hi))},
		{"url(#hatch)", "n/a: cannot be hit (see the dimension gaps)"},
		unhit,
	} {
		sx, sy := x+(i%2)*stride, y+(i/2)*20
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#9e9e9e"/>`+"\n", sx, sy-10, svgDimCellW, svgDimCellH, s.fill)
		svgText(b, sx+svgDimCellW+6, sy, `font-size="11"`, s.text)
	}
}
