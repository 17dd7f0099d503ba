package reports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/iprange"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// The hand-made point that no scenario hit, for no reason.
const (
	gapDim, gapGroup, gapPoint = dims.Budget, "max_ops", "max int64"
)

// handMade is the report of campaignResult's summary, counted as a full
// campaign (reports.FullChecks checks), with hand-made dimension points
// (hits gives each point's count) and, when na is not nil, the
// not-applicable table of a real sandbox, loaded as a saved summary would
// be.
func handMade(t *testing.T, hits func(dims.Point) uint64, na map[string]string) *reports.Report {
	t.Helper()
	return handMadeOf(t, reports.FullChecks, hits, na)
}

// point is catalogue point p of the SPEC dimension table, hit hits times.
func point(p dims.Point, hits uint64) reports.DimensionPoint {
	return reports.DimensionPoint{Dim: p.Dim, Group: p.Group, Name: p.Name, Unreachable: p.Unreachable, Hits: hits}
}

// handMadeOf is handMade with the number of checks the summary claims.
func handMadeOf(t *testing.T, checks int, hits func(dims.Point) uint64, na map[string]string) *reports.Report {
	t.Helper()
	s := campaign.Summarize(campaignResult(t, 1), "reference")
	s.Checks = checks
	for _, p := range dims.Catalog() {
		s.Dimensions = append(s.Dimensions, point(p, hits(p)))
	}
	b, err := json.Marshal(struct {
		reports.Summary
		NotApplicable map[string]string `json:"not_applicable,omitempty"`
	}{s, na})
	if err != nil {
		t.Fatal(err)
	}
	r, err := reports.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// oneGap hits every point that can exist, 1 + its index in its group
// times, but the one of gapDim, gapGroup, gapPoint.
func oneGap(p dims.Point) uint64 {
	if p.Unreachable != "" || p.Dim == gapDim && p.Group == gapGroup && p.Name == gapPoint {
		return 0
	}
	i, _ := dims.Find(p.Dim, p.Group, p.Name)
	return uint64(i%7) + 1
}

func unreachable() []dims.Point {
	var out []dims.Point
	for _, p := range dims.Catalog() {
		if p.Unreachable != "" {
			out = append(out, p)
		}
	}
	return out
}

func TestDimensionRowsAndGaps(t *testing.T) {
	r := handMade(t, oneGap, nil)
	if !r.HasDimensions() {
		t.Fatal("no dimensions")
	}
	points, groups := 0, map[[2]string]bool{}
	for _, p := range dims.Catalog() {
		groups[[2]string{p.Dim, p.Group}] = true
	}
	for _, row := range r.DimensionRows {
		points += row.Points
	}
	if len(r.DimensionRows) != len(groups) || points != len(dims.Catalog()) {
		t.Errorf("%d rows of %d points, want %d of %d", len(r.DimensionRows), points, len(groups), len(dims.Catalog()))
	}
	for _, row := range r.DimensionRows {
		want := reports.DimensionRow{Dimension: row.Dimension, Group: row.Group, Points: row.Points, Reachable: row.Reachable,
			Hit: row.Reachable, FewestHits: row.FewestHits, Explained: row.Points - row.Reachable}
		if row.Dimension == gapDim && row.Group == gapGroup {
			want = reports.DimensionRow{Dimension: gapDim, Group: gapGroup, Points: 5, Reachable: 5, Hit: 4, FewestHits: 0, Unexplained: 1}
		}
		if row.Reachable > 0 && row.FewestHits == 0 && row.Unexplained == 0 {
			t.Errorf("%s %s: fewest hits 0 with every point hit", row.Dimension, row.Group)
		}
		if diff := cmp.Diff(want, row); diff != "" {
			t.Errorf("row mismatch (-want +got):\n%s", diff)
		}
	}
	var want []reports.DimensionGap
	for _, p := range dims.Catalog() {
		switch {
		case p.Unreachable != "":
			want = append(want, reports.DimensionGap{Dimension: p.Dim, Group: p.Group, Point: p.Name, Explained: true, Explanation: p.Unreachable})
		case oneGap(p) == 0:
			want = append(want, reports.DimensionGap{Dimension: p.Dim, Group: p.Group, Point: p.Name, Explanation: reports.Unexplained})
		}
	}
	if diff := cmp.Diff(want, r.DimensionGaps); diff != "" {
		t.Errorf("gaps mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]reports.DimensionGap{{Dimension: gapDim, Group: gapGroup, Point: gapPoint, Explanation: reports.Unexplained}},
		r.UnexplainedDimensionGaps()); diff != "" {
		t.Errorf("unexplained gaps mismatch (-want +got):\n%s", diff)
	}
	if len(unreachable()) == 0 {
		t.Fatal("the catalogue has no unreachable point: the test no longer tests explained gaps")
	}
}

func TestDimensionTableText(t *testing.T) {
	text := render(t, handMade(t, oneGap, nil), reports.Text)
	_, sect, ok := strings.Cut(text, "SPEC dimensions\n---------------\n")
	if !ok {
		t.Fatalf("no SPEC dimensions section:\n%s", text)
	}
	n := len(dims.Catalog())
	for _, want := range []string{
		"│ n/a: 8 ",
		"Dimension gaps\n--------------",
		"just below: dotted, short, integer, hex, octal, v4-mapped,", "no address comes before 0.0.0.0",
	} {
		if !strings.Contains(sect, want) {
			t.Errorf("dimension section lacks %q:\n%s", want, sect)
		}
	}
	for _, cells := range [][]string{
		{"dimension", "group", "points", "reachable", "hit", "fewest hits", "gaps"},
		{"budget", "max_ops", "5", "5", "4", "0", "GAP: 1"},
		{"dimension", "group", "points", "explanation"},
		{"budget", "max_ops", "max int64", "GAP"},
	} {
		if !hasRow(sect, cells...) {
			t.Errorf("no row %q:\n%s", cells, sect)
		}
	}
	if want := strconv.Itoa(n-1-len(unreachable())) + " of " + strconv.Itoa(n) + "; " + strconv.Itoa(1+len(unreachable())) + " unhit: " +
		strconv.Itoa(len(unreachable())) + " explained, 1 UNEXPLAINED"; !hasRow(text, "SPEC dimension points hit", want) {
		t.Errorf("no summary row %q", want)
	}
	for _, want := range []string{
		"WARNING: 1 unexplained SPEC dimension gap: no scenario hit budget max_ops: max int64",
		strconv.Itoa(1+len(unreachable())) + " of " + strconv.Itoa(n) + " SPEC dimension points unhit, 1 UNEXPLAINED",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
}

// hasRow reports whether a line of a text table holds the cells, in order.
func hasRow(table string, cells ...string) bool {
	for _, l := range strings.Split(table, "\n") {
		var got []string
		for _, c := range strings.Split(l, "│") {
			if c = strings.TrimSpace(c); c != "" {
				got = append(got, c)
			}
		}
		if cmp.Equal(got, cells) {
			return true
		}
	}
	return false
}

func TestDimensionTableMarkdown(t *testing.T) {
	md := render(t, handMade(t, oneGap, nil), reports.Markdown)
	for _, want := range []string{
		"## SPEC dimensions", "### Dimension gaps",
		"| `budget`         | max\\_ops ", "**GAP: 1**", "| max int64 ", "| **GAP** ",
		"| just below: dotted, short, integer, hex, octal, v4-mapped, nat64, v4-compatible, 6to4, name | no address comes before 0.0.0.0 ",
		"**1 unexplained**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

func TestDimensionTableJSON(t *testing.T) {
	r := handMade(t, oneGap, nil)
	var b bytes.Buffer
	if err := r.Write(&b, reports.JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Dimensions    []reports.DimensionPoint `json:"dimensions"`
		DimensionRows []reports.DimensionRow   `json:"dimension_rows"`
		DimensionGaps []reports.DimensionGap   `json:"dimension_gaps"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Dimensions) != len(dims.Catalog()) {
		t.Errorf("%d points, want %d", len(doc.Dimensions), len(dims.Catalog()))
	}
	if diff := cmp.Diff(r.DimensionRows, doc.DimensionRows); diff != "" {
		t.Errorf("dimension_rows mismatch (-report +json):\n%s", diff)
	}
	if diff := cmp.Diff(r.DimensionGaps, doc.DimensionGaps); diff != "" {
		t.Errorf("dimension_gaps mismatch (-report +json):\n%s", diff)
	}
	for _, key := range []string{`"dimension": "budget"`, `"group": "max_ops"`, `"point": "max int64"`, `"explained": false`,
		`"explanation": "unexplained"`, `"fewest_hits": 0`, `"unexplained": 1`} {
		if !strings.Contains(b.String(), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

// A report loaded from its own JSON, or from the summary of the same
// campaign, renders the same dimension table.
func TestDimensionRoundTrip(t *testing.T) {
	res, err := campaign.Run(context.Background(), campaign.Config{Seed: 5, Checks: 300, Dimensions: true})
	if err != nil {
		t.Fatal(err)
	}
	r := campaign.NewReport(res, "reference")
	if !r.HasDimensions() || len(r.Summary.Dimensions) != len(dims.Catalog()) {
		t.Fatalf("a campaign with Dimensions: %d points", len(r.Summary.Dimensions))
	}
	for i, p := range r.Summary.Dimensions {
		if p.Hits != res.Dimensions.Hits(i) {
			t.Fatalf("point %s: %d hits, the campaign counted %d", p, p.Hits, res.Dimensions.Hits(i))
		}
	}
	var own, sum bytes.Buffer
	if err := r.Write(&own, reports.JSON); err != nil {
		t.Fatal(err)
	}
	if err := json.NewEncoder(&sum).Encode(campaign.Summarize(res, "reference")); err != nil {
		t.Fatal(err)
	}
	fromOwn, err := reports.Load(bytes.NewReader(own.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range reports.Formats() {
		if diff := cmp.Diff(render(t, r, f), render(t, fromOwn, f)); diff != "" {
			t.Errorf("%s: loaded from its own JSON, the report renders differently (-campaign +loaded):\n%s", f, diff)
		}
	}
	// A run's summary carries no violations per class, so only the
	// dimension table is sure to render the same.
	fromRun, err := reports.Load(bytes.NewReader(sum.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.DimensionRows, fromRun.DimensionRows); diff != "" {
		t.Errorf("rows loaded from the run's summary mismatch (-campaign +loaded):\n%s", diff)
	}
	if diff := cmp.Diff(r.DimensionGaps, fromRun.DimensionGaps); diff != "" {
		t.Errorf("gaps loaded from the run's summary mismatch (-campaign +loaded):\n%s", diff)
	}
	for _, f := range []reports.Format{reports.Text, reports.Markdown} {
		if dimSection(render(t, r, f)) == "" {
			t.Fatalf("%s: no dimension section", f)
		}
		if diff := cmp.Diff(dimSection(render(t, r, f)), dimSection(render(t, fromRun, f))); diff != "" {
			t.Errorf("%s: the dimension section of the run's summary renders differently (-campaign +loaded):\n%s", f, diff)
		}
	}
}

// dimSection returns a rendered report from its dimension section's
// heading on, "" when it has none.
func dimSection(s string) string {
	if i := strings.Index(s, "SPEC dimensions\n"); i >= 0 {
		return s[i:]
	}
	return ""
}

// A summary saved before the dimensions were counted renders without the
// table, and says so in one line.
func TestOldSummaryHasNoDimensionTable(t *testing.T) {
	b, err := json.Marshal(campaign.Summarize(campaignResult(t, 1), "reference"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`"dimensions"`)) {
		t.Fatal("a campaign without Dimensions wrote dimension points")
	}
	r, err := reports.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if r.HasDimensions() || r.DimensionRows != nil || r.DimensionGaps != nil || r.UnexplainedDimensionGaps() != nil {
		t.Fatalf("dimensions from nowhere: %v %v", r.DimensionRows, r.DimensionGaps)
	}
	text := render(t, r, reports.Text)
	_, sect, _ := strings.Cut(text, "SPEC dimensions\n---------------\n\n")
	if line, _, _ := strings.Cut(sect, "\n"); !strings.HasPrefix(line, "Not counted: this summary carries no SPEC dimension points") {
		t.Errorf("the dimension section does not say it has none: %q", line)
	}
	for _, bad := range []string{"Dimension gaps", "│ fewest hits", "dimension points unhit"} {
		if strings.Contains(text, bad) {
			t.Errorf("text says %q without dimensions", bad)
		}
	}
	if !hasRow(text, "SPEC dimension points hit", "not counted") {
		t.Error("the summary does not say the dimensions were not counted")
	}
	var js bytes.Buffer
	if err := r.Write(&js, reports.JSON); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"dimension_rows": null`) || !strings.Contains(js.String(), `"dimension_gaps": null`) {
		t.Error("the JSON of a report without dimensions does not say so")
	}
	var svg bytes.Buffer
	if err := r.WriteSVG(&svg); err != nil || strings.Contains(svg.String(), "SPEC dimensions") {
		t.Errorf("heat map without dimensions: %v, panel drawn", err)
	}
}

func TestLoadRejectsForeignDimensions(t *testing.T) {
	edit := func(f func(s *reports.Summary)) string {
		s := campaign.Summarize(campaignResult(t, 1), "reference")
		for _, p := range dims.Catalog() {
			s.Dimensions = append(s.Dimensions, point(p, 1))
		}
		f(&s)
		b, _ := json.Marshal(s)
		return string(b)
	}
	for _, c := range []struct{ reason, in, want string }{
		{"unknown point", edit(func(s *reports.Summary) { s.Dimensions[3].Name = "nowhere" }), `unknown dimension point "internal-range 0.0.0.0/8: nowhere"`},
		{"twice", edit(func(s *reports.Summary) { s.Dimensions[1] = s.Dimensions[0] }), "listed twice"},
		{"missing", edit(func(s *reports.Summary) { s.Dimensions = s.Dimensions[1:] }), "missing"},
	} {
		_, err := reports.Load(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.reason, err, c.want)
		}
	}
	// The catalogue's reasons win over the file's, and order is restored.
	s := edit(func(s *reports.Summary) {
		s.Dimensions[0], s.Dimensions[1] = s.Dimensions[1], s.Dimensions[0]
		for i := range s.Dimensions {
			s.Dimensions[i].Unreachable = "forged"
		}
	})
	r, err := reports.Load(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range dims.Catalog() {
		got := r.Summary.Dimensions[i]
		if want := point(p, got.Hits); got != want {
			t.Fatalf("point %d: %+v, want %+v", i, got, want)
		}
	}
}

// On a real sandbox, a group the adapter drew nothing of is explained;
// a point unhit in a group it did draw stays a gap.
func TestRealSandboxDimensionGaps(t *testing.T) {
	const fetchNA = "the sandbox has file tools only: no net_fetch op is sent to it"
	hits := func(p dims.Point) uint64 {
		switch {
		case p.Dim == dims.HostShape || p.Dim == dims.InternalRange || p.Group == "fetch host" || p.Group == "fetch path" || p.Group == "tool name" || p.Group == "tool input":
			return 0
		}
		return oneGap(p)
	}
	r := handMade(t, hits, map[string]string{"no-internal-egress": fetchNA})
	for _, g := range r.DimensionGaps {
		switch {
		case g.Dimension == gapDim && g.Group == gapGroup:
			if g.Explained {
				t.Errorf("%+v explained on a real sandbox: its group was drawn", g)
			}
		case g.Dimension == dims.HostShape || g.Dimension == dims.InternalRange || g.Group == "fetch host" || g.Group == "fetch path":
			if want := "not drawn for this sandbox: " + fetchNA; g.Explanation != want || !g.Explained {
				t.Errorf("%+v, want explained as %q", g, want)
			}
		case g.Group == "tool name" || g.Group == "tool input":
			if !g.Explained || !strings.HasPrefix(g.Explanation, "not drawn for this sandbox: its adapter draws no op") {
				t.Errorf("%+v, want explained as not drawn", g)
			}
		}
	}
	if n := len(r.UnexplainedDimensionGaps()); n != 1 {
		t.Errorf("%d unexplained gaps, want 1", n)
	}
	ranges := 0
	for _, p := range dims.Catalog() {
		if p.Dim == dims.InternalRange {
			ranges++
		}
	}
	text := render(t, r, reports.Text)
	for _, cells := range [][]string{
		{"internal-range", "all " + strconv.Itoa(len(iprange.Ranges())) + " groups", "all " + strconv.Itoa(ranges) + " points", "not drawn for this sandbox: the sandbox has file tools only: no"},
		{"bytes", "fetch host, fetch path", "all 8 points", "not drawn for this sandbox: the sandbox has file tools only: no"},
		{"bytes", "tool name, tool input", "all 8 points", "not drawn for this sandbox: its adapter draws no op that reaches"},
		{"host-shape", "net_fetch host", "all 17 points", "not drawn for this sandbox: the sandbox has file tools only: no"},
		{"budget", "max_ops", "max int64", "GAP"},
	} {
		if !hasRow(text, cells...) {
			t.Errorf("no gap line %q", cells)
		}
	}
}

func TestDimensionPanelIsWellFormed(t *testing.T) {
	r := handMade(t, oneGap, nil)
	var b bytes.Buffer
	if err := r.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	titles := 0
	var tips []string
	inTitle := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inTitle = tok.Name.Local == "title"
			if inTitle {
				titles++
			}
		case xml.CharData:
			if inTitle {
				tips = append(tips, string(tok))
			}
		case xml.EndElement:
			inTitle = false
		}
	}
	if want := len(oracle.Invariants())*len(attack.All()) + len(dims.Catalog()); titles != want {
		t.Errorf("%d cells, want %d (the matrix's and a point each)", titles, want)
	}
	for _, want := range []string{"budget max_ops: max int64: 0 hits — an unexplained gap",
		"internal-range 0.0.0.0/8: just below, dotted: 0 hits — no address comes before 0.0.0.0"} {
		if !slices.Contains(tips, want) {
			t.Errorf("no cell %q", want)
		}
	}
	for _, want := range []string{"SPEC dimensions", "1 unexplained", "GAP: never hit"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("panel lacks %q", want)
		}
	}
	var again bytes.Buffer
	if err := r.WriteSVG(&again); err != nil || again.String() != b.String() {
		t.Errorf("the heat map differs when drawn twice (%v)", err)
	}
}

// When every point that can exist was hit, the only gaps are explained
// and nothing is loud.
func TestEveryReachablePointHit(t *testing.T) {
	r := handMade(t, func(p dims.Point) uint64 {
		if p.Unreachable != "" {
			return 0
		}
		return 1
	}, nil)
	if len(r.UnexplainedDimensionGaps()) != 0 || len(r.DimensionGaps) != len(unreachable()) {
		t.Fatalf("%d gaps, %d unexplained", len(r.DimensionGaps), len(r.UnexplainedDimensionGaps()))
	}
	text := render(t, r, reports.Text)
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "│") && strings.Contains(l, "GAP") || strings.Contains(l, "UNEXPLAINED") || strings.Contains(l, "WARNING") {
			t.Errorf("text says: %s", l)
		}
	}
	if want := strconv.Itoa(len(unreachable())) + " of " + strconv.Itoa(len(dims.Catalog())) + " SPEC dimension points unhit, all explained"; !strings.Contains(text, want) {
		t.Errorf("headline lacks %q", want)
	}
}

// TestDrawnPointsAreTheAdapters: with the counts of the scenarios as
// generated (a real sandbox's adapter narrowed them), a point they hit and
// the checked scenarios did not is explained as the adapter's; a point
// neither hit stays a GAP, though others of its group were hit.
func TestDrawnPointsAreTheAdapters(t *testing.T) {
	const dropped = "ops at + output at" // drawn 4 times, dropped by the adapter
	s := campaign.Summarize(campaignResult(t, 1), "osroot")
	for _, p := range dims.Catalog() {
		hits, drawn := oneGap(p), oneGap(p)
		if p.Dim == dims.BudgetPair && p.Name == dropped {
			hits, drawn = 0, 4
		}
		d := point(p, hits)
		d.Drawn = &drawn
		s.Dimensions = append(s.Dimensions, d)
	}
	b, err := json.Marshal(struct {
		reports.Summary
		NotApplicable map[string]string `json:"not_applicable"`
	}{s, map[string]string{"halt-latched": "no budgets"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := reports.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var sawDropped, sawGap bool
	for _, g := range r.DimensionGaps {
		switch {
		case g.Point == dropped:
			sawDropped = true
			if want := "not drawn for this sandbox: its adapter drops every op that reaches it (4 in the scenarios as generated)"; !g.Explained || g.Explanation != want {
				t.Errorf("%+v, want explained as %q", g, want)
			}
		case g.Dimension == gapDim && g.Group == gapGroup && g.Point == gapPoint:
			sawGap = true
			if g.Explained {
				t.Errorf("%+v explained: the scenarios as generated missed it too", g)
			}
		}
	}
	if !sawDropped || !sawGap {
		t.Errorf("gaps %+v lack the dropped point or the GAP", r.DimensionGaps)
	}
	// A summary with drawn counts on some points only is not one this
	// version wrote.
	s.Dimensions[3].Drawn = nil
	b, _ = json.Marshal(s)
	if _, err := reports.Load(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "drawn counts on some points only") {
		t.Errorf("Load of mixed drawn counts: %v", err)
	}
}
