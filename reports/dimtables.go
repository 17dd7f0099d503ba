package reports

import (
	"fmt"
	"strings"
)

// writeDimensions writes the SPEC dimension table and its gaps, or says in
// one line that the summary has none.
func (r *Report) writeDimensions(d *doc) {
	d.heading(2, "SPEC dimensions")
	if !r.HasDimensions() {
		d.para("Not counted: this summary carries no SPEC dimension points (it was saved before sbxfuzz counted them).")
		return
	}
	d.para("The points of the SPEC's dimensions (package " + d.span("dims") + "), hit by the scenarios the campaign checked: each internal range of §6 × the address just below it, its low edge, its interior, its high edge and the address just above it × each spelling of the address; each budget of §5 at 0, below, exactly at, one over and max int64, and budgets on their edge together in one op; the clock shapes of §7; the byte classes of every argument and of returned data; the path shapes of §4 under roots written with and without a trailing slash; the host shapes of §9. A row per group: its points, those that can exist, those hit, and the fewest hits of a point that can exist. n/a: points that cannot be hit, explained below. " + r.unhitLegend("not hit", "a point no scenario hit"))
	var rows [][]string
	for _, row := range r.DimensionRows {
		fewest := "-"
		if row.Reachable > 0 {
			fewest = fmt.Sprint(row.FewestHits)
		}
		var gaps []string
		switch {
		case row.Unexplained > 0 && r.Full():
			gaps = append(gaps, d.strong(fmt.Sprintf("GAP: %d", row.Unexplained)))
		case row.Unexplained > 0:
			gaps = append(gaps, fmt.Sprintf("not hit: %d", row.Unexplained))
		}
		if row.Explained > 0 {
			gaps = append(gaps, fmt.Sprintf("n/a: %d", row.Explained))
		}
		if len(gaps) == 0 {
			gaps = []string{"none"}
		}
		rows = append(rows, []string{d.code(row.Dimension), d.text(row.Group), fmt.Sprint(row.Points), fmt.Sprint(row.Reachable),
			fmt.Sprint(row.Hit), fewest, strings.Join(gaps, "; ")})
	}
	d.table([]column{{"dimension", false}, {"group", false}, {"points", true}, {"reachable", true}, {"hit", true},
		{"fewest hits", true}, {"gaps", false}}, rows)
	r.writeDimensionGaps(d)
}

func (r *Report) writeDimensionGaps(d *doc) {
	d.heading(3, "Dimension gaps")
	if len(r.DimensionGaps) == 0 {
		d.para("None: the scenarios hit every point.")
		return
	}
	if r.Full() {
		d.para("Every point no scenario hit, and why. Points left unhit for one reason share a line; each unexplained point — GAP — has a line of its own: a case the generators should make and do not.")
	} else {
		d.para(fmt.Sprintf("Every point no scenario hit, and why: for a reason, or not hit in these %d checks, a short campaign. Points left unhit for one reason share a line.", r.Checks))
	}
	var rows [][]string
	for _, l := range r.dimensionGapLines() {
		why := d.prose(l.why)
		if !l.explained && r.Full() {
			why = d.strong("GAP")
		}
		rows = append(rows, []string{d.code(l.dim), d.prose(l.group), d.prose(l.points), why})
	}
	d.table([]column{{"dimension", false}, {"group", false}, {"points", false}, {"explanation", false}}, rows)
}

// gapLine is a line of the dimension gaps: one unexplained point of a full
// campaign, or the points of one or more groups left unhit for one reason
// (in a short campaign, "not hit in N checks" is one).
type gapLine struct {
	dim, group, points string
	explained          bool
	folded             bool // holds every point of the group with its why
	why                string
	whole              int // the points of the groups, when the line has them all; else 0
}

// dimensionGapLines folds the dimension gaps into lines: per group, one
// line per unexplained point and one per reason; then adjacent lines of a
// dimension that each hold whole groups for the same reason into one.
func (r *Report) dimensionGapLines() []gapLine {
	size := map[[2]string]int{} // points per (dimension, group)
	groups := map[string]int{}  // groups per dimension
	for _, row := range r.DimensionRows {
		size[[2]string{row.Dimension, row.Group}] = row.Points
		groups[row.Dimension]++
	}
	var lines []gapLine
	for i := 0; i < len(r.DimensionGaps); {
		j := i
		for j < len(r.DimensionGaps) && r.DimensionGaps[j].Dimension == r.DimensionGaps[i].Dimension && r.DimensionGaps[j].Group == r.DimensionGaps[i].Group {
			j++
		}
		lines = append(lines, groupGapLines(r.DimensionGaps[i:j], size[[2]string{r.DimensionGaps[i].Dimension, r.DimensionGaps[i].Group}], !r.Full())...)
		i = j
	}
	return mergeWholeGroups(lines, groups)
}

// groupGapLines folds the gaps of one group of n points, in order of
// their first point: those of one explanation into one line and, with
// foldUnhit (a short campaign), those merely not hit too; each other
// unexplained point — a GAP — gets a line of its own.
func groupGapLines(gaps []DimensionGap, n int, foldUnhit bool) []gapLine {
	var lines []gapLine
	names := map[string][]string{} // explanation → points
	for _, g := range gaps {
		if !g.Explained && !foldUnhit {
			lines = append(lines, gapLine{dim: g.Dimension, group: g.Group, points: g.Point, why: g.Explanation})
			continue
		}
		if names[g.Explanation] == nil {
			lines = append(lines, gapLine{dim: g.Dimension, group: g.Group, explained: g.Explained, folded: true, why: g.Explanation})
		}
		names[g.Explanation] = append(names[g.Explanation], g.Point)
	}
	for i, l := range lines {
		if l.folded {
			lines[i].points = foldNames(names[l.why], n)
			if len(names[l.why]) == n {
				lines[i].whole = n
			}
		}
	}
	return lines
}

// mergeWholeGroups joins adjacent lines of one dimension that each hold a
// whole group unhit for the same reason; a line that holds every group of
// its dimension says so.
func mergeWholeGroups(lines []gapLine, groups map[string]int) []gapLine {
	var out []gapLine
	count := []int{} // groups in each line of out
	for _, l := range lines {
		if k := len(out) - 1; k >= 0 && l.whole > 0 && out[k].whole > 0 && out[k].dim == l.dim && out[k].why == l.why {
			out[k].group += ", " + l.group
			out[k].whole += l.whole
			out[k].points = fmt.Sprintf("all %d points", out[k].whole)
			count[k]++
			continue
		}
		out, count = append(out, l), append(count, 1)
	}
	for k, l := range out {
		if n := groups[l.dim]; l.whole > 0 && count[k] == n && n > 1 {
			out[k].group = fmt.Sprintf("all %d groups", n)
		}
	}
	return out
}

// foldNames writes the names of points of a group of n: "all n points",
// or "just below: dotted, short" when they share what comes before a
// comma, or the names joined by "; ".
func foldNames(names []string, n int) string {
	if len(names) == n && n > 1 {
		return fmt.Sprintf("all %d points", n)
	}
	head, _, ok := strings.Cut(names[0], ", ")
	var tails []string
	for _, s := range names {
		h, t, found := strings.Cut(s, ", ")
		if !found || h != head {
			ok = false
			break
		}
		tails = append(tails, t)
	}
	if ok && len(names) > 1 {
		return head + ": " + strings.Join(tails, ", ")
	}
	return strings.Join(names, "; ")
}

// dimensionsHeadline is the headline's clause on the dimension points,
// "" when the report has none.
func (r *Report) dimensionsHeadline(d *doc) string {
	if !r.HasDimensions() {
		return ""
	}
	unhit, un := len(r.DimensionGaps), len(r.UnexplainedDimensionGaps())
	switch {
	case unhit == 0:
		return fmt.Sprintf("all %d SPEC dimension points hit; ", len(r.Summary.Dimensions))
	case un == 0:
		return fmt.Sprintf("%d of %d SPEC dimension points unhit, all explained; ", unhit, len(r.Summary.Dimensions))
	}
	return fmt.Sprintf("%d of %d SPEC dimension points unhit, %s; ", unhit, len(r.Summary.Dimensions), r.unexplainedCount(d, un))
}

// dimensionsCell is the summary's value for the dimension points.
func (r *Report) dimensionsCell(d *doc) string {
	if !r.HasDimensions() {
		return "not counted"
	}
	unhit, un := len(r.DimensionGaps), len(r.UnexplainedDimensionGaps())
	return fmt.Sprintf("%d of %d; %d unhit: %d explained, %s", r.dimensionPointsHit(), len(r.Summary.Dimensions), unhit, unhit-un, r.unexplainedCount(d, un))
}

// dimensionsWarning says which points nothing explains: the first few by
// name, all of them in the dimension gaps.
func dimensionsWarning(gs []DimensionGap) string {
	const shown = 5
	var names []string
	for _, g := range gs[:min(len(gs), shown)] {
		names = append(names, g.Dimension+" "+g.Group+": "+g.Point)
	}
	more := ""
	if len(gs) > shown {
		more = fmt.Sprintf(" and %d more", len(gs)-shown)
	}
	return fmt.Sprintf("%s: no scenario hit %s%s (listed under Dimension gaps), and nothing explains why.",
		plural(len(gs), "unexplained SPEC dimension gap"), strings.Join(names, "; "), more)
}
