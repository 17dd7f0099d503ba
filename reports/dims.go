package reports

import (
	"fmt"

	"github.com/sbxfuzz/sbxfuzz/internal/dims"
)

// DimensionRow is one (dimension, group) of the SPEC dimension table:
// how many points it has, how many of them can exist, how
// many a scenario hit, and the fewest hits of a point that can exist.
type DimensionRow struct {
	Dimension string `json:"dimension"`
	Group     string `json:"group"`
	Points    int    `json:"points"`
	Reachable int    `json:"reachable"` // points that can exist (no DimensionPoint.Unreachable)
	Hit       int    `json:"hit"`
	// FewestHits is the least count of a reachable point: 0 when one was
	// never hit, and 0 when the group has none.
	FewestHits  uint64 `json:"fewest_hits"`
	Explained   int    `json:"explained"`   // unhit points with a reason
	Unexplained int    `json:"unexplained"` // unhit points with none: gaps the generators leave, or, in a short campaign, points not hit
}

// DimensionGap is a point of the SPEC dimension table no scenario hit.
// Explanation says why it cannot be hit (the point cannot exist, or the
// sandbox's adapter draws nothing that reaches it); when nothing does
// (Explained false), it is "unexplained" in a full campaign and "not hit in
// N checks" in a short one (Report.Full).
type DimensionGap struct {
	Dimension   string `json:"dimension"`
	Group       string `json:"group"`
	Point       string `json:"point"`
	Explained   bool   `json:"explained"`
	Explanation string `json:"explanation"`
}

// notDrawn begins the explanation of a point the adapter of a real
// sandbox never drew: its whole group went unhit.
const notDrawn = "not drawn for this sandbox: "

// HasDimensions reports whether the report carries the SPEC dimension
// table: a summary saved before the dimensions were counted does not.
func (r *Report) HasDimensions() bool { return r.Summary.Dimensions != nil }

// UnexplainedDimensionGaps returns the points no scenario hit for no known
// reason: in a full campaign, points the generators should reach and did
// not; in a short one, points not hit in its checks.
func (r *Report) UnexplainedDimensionGaps() []DimensionGap {
	var out []DimensionGap
	for _, g := range r.DimensionGaps {
		if !g.Explained {
			out = append(out, g)
		}
	}
	return out
}

// normalizeDims checks the points of a loaded report against this
// version's catalogue and puts them in its order, with its reasons.
func (r *Report) normalizeDims() error {
	if r.Summary.Dimensions == nil {
		return nil
	}
	cat := dims.Catalog()
	hits := make([]uint64, len(cat))
	drawn := make([]*uint64, len(cat))
	seen := make([]bool, len(cat))
	for _, p := range r.Summary.Dimensions {
		i, ok := dims.Find(p.Dim, p.Group, p.Name)
		if !ok {
			return fmt.Errorf("unknown dimension point %q", p.String())
		}
		if seen[i] {
			return fmt.Errorf("dimension point %q listed twice", p.String())
		}
		if (p.Drawn == nil) != (r.Summary.Dimensions[0].Drawn == nil) {
			return fmt.Errorf("dimension point %q: drawn counts on some points only", p.String())
		}
		seen[i], hits[i], drawn[i] = true, p.Hits, p.Drawn
	}
	out := make([]DimensionPoint, len(cat))
	for i, p := range cat {
		if !seen[i] {
			return fmt.Errorf("dimension point %q missing: not a summary of this version's catalogue", p.String())
		}
		out[i] = DimensionPoint{Dim: p.Dim, Group: p.Group, Name: p.Name, Unreachable: p.Unreachable, Hits: hits[i], Drawn: drawn[i]}
	}
	r.Summary.Dimensions = out
	return nil
}

// deriveDims computes the dimension rows and gaps from the points.
func (r *Report) deriveDims() {
	r.DimensionRows, r.DimensionGaps = nil, nil
	if !r.HasDimensions() {
		return
	}
	r.DimensionRows, r.DimensionGaps = []DimensionRow{}, []DimensionGap{}
	for _, grp := range groupsOf(r.Summary.Dimensions) {
		row := DimensionRow{Dimension: grp.dim, Group: grp.name, Points: len(grp.points)}
		first := true
		for _, p := range grp.points {
			if p.Unreachable == "" {
				row.Reachable++
				if first || p.Hits < row.FewestHits {
					row.FewestHits, first = p.Hits, false
				}
			}
			if p.Hits > 0 {
				row.Hit++
				continue
			}
			g := DimensionGap{Dimension: p.Dim, Group: p.Group, Point: p.Name, Explanation: r.unexplained()}
			if why, ok := r.explainPoint(p, grp.hits == 0); ok {
				g.Explained, g.Explanation = true, why
				row.Explained++
			} else {
				row.Unexplained++
			}
			r.DimensionGaps = append(r.DimensionGaps, g)
		}
		r.DimensionRows = append(r.DimensionRows, row)
	}
}

// explainPoint returns why point p was never hit, and false when nothing
// explains it. On a sandbox whose adapter narrows scenarios, a point the
// scenarios as generated hit (p.Drawn) is the adapter's doing, and so is a
// group no point of which was hit (groupUnhit) in a full campaign: the
// adapter draws none of its ops.
func (r *Report) explainPoint(p DimensionPoint, groupUnhit bool) (string, bool) {
	dropped := p.Drawn != nil && *p.Drawn > 0
	if !dropped && (r.NotApplicable == nil || !groupUnhit) {
		return p.Unreachable, p.Unreachable != ""
	}
	if why, ok := r.NotApplicable["no-internal-egress"]; ok && fetchOnly(p) {
		return notDrawn + why, true
	}
	if dropped {
		return fmt.Sprintf("%sits adapter drops every op that reaches it (%d in the scenarios as generated)", notDrawn, *p.Drawn), true
	}
	if !r.Full() {
		// A short campaign may have drawn no op of the group for want
		// of checks: that tells nothing of what the adapter expresses.
		return p.Unreachable, p.Unreachable != ""
	}
	return notDrawn + "its adapter draws no op that reaches this group (it cannot express them)", true
}

// fetchOnly reports whether only a net_fetch op reaches point p.
func fetchOnly(p DimensionPoint) bool {
	switch p.Dim {
	case dims.InternalRange, dims.HostShape:
		return true
	case dims.Bytes:
		return p.Group == "fetch host" || p.Group == "fetch path"
	}
	return false
}

// dimGroup is the points of one (dimension, group), in catalogue order.
type dimGroup struct {
	dim, name string
	points    []DimensionPoint
	hits      uint64 // over all its points
}

// groupsOf splits points, in catalogue order, into their groups.
func groupsOf(points []DimensionPoint) []dimGroup {
	var out []dimGroup
	for _, p := range points {
		if n := len(out); n == 0 || out[n-1].dim != p.Dim || out[n-1].name != p.Group {
			out = append(out, dimGroup{dim: p.Dim, name: p.Group})
		}
		g := &out[len(out)-1]
		g.points = append(g.points, p)
		g.hits += p.Hits
	}
	return out
}

// dimensionPointsHit returns how many points the report's campaign hit.
func (r *Report) dimensionPointsHit() int {
	n := 0
	for _, p := range r.Summary.Dimensions {
		if p.Hits > 0 {
			n++
		}
	}
	return n
}
