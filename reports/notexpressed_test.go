package reports_test

import (
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// TestShortCampaignDoesNotClaimAClassInexpressible: on a real sandbox, a
// class with no op in a campaign of a few checks may simply not have been
// drawn (osroot runs control-bytes and long-path ops, which a campaign of a
// few checks may draw none of): its cells are not hit in those checks, not gaps
// its adapter explains. Only a full campaign, which draws every class,
// tells by an empty class that the adapter cannot express it.
func TestShortCampaignDoesNotClaimAClassInexpressible(t *testing.T) {
	for _, c := range []struct {
		checks    int
		explained bool
	}{{4, false}, {reports.FullChecks, true}} {
		s := campaign.Summarize(campaignResult(t, 1), "osroot")
		s.Checks = c.checks
		for i := range s.Classes {
			if s.Classes[i].ID == "control-bytes" {
				s.Classes[i].Ops, s.Classes[i].Kinds = 0, map[string]uint64{}
			}
		}
		for i := range s.Invariants {
			delete(s.Invariants[i].ByClass, "control-bytes")
		}
		s.MarkNotApplicable(map[string]string{"grant-immutable": "a real sandbox's grant cannot be read back"})
		for _, r := range builtAndLoaded(t, s) {
			found := false
			for _, g := range r.Gaps {
				if g.Invariant != "confinement" || g.Class != "control-bytes" {
					continue
				}
				found = true
				if g.Explained != c.explained {
					t.Errorf("%d checks: the gap of confinement × control-bytes is %+v; want explained %v", c.checks, g, c.explained)
				}
			}
			if !found {
				t.Errorf("%d checks: no gap at confinement × control-bytes, a class with no op: %+v", c.checks, r.Gaps)
			}
		}
	}
}

// TestShortCampaignDoesNotClaimAGroupInexpressible: on a real sandbox, a
// group of dimension points no scenario of a few checks hit may simply
// not have been drawn: its points are not hit in those checks, not points
// its adapter cannot express (a short report on osroot said so of budget
// groups that a longer campaign reaches).
func TestShortCampaignDoesNotClaimAGroupInexpressible(t *testing.T) {
	hits := func(p dims.Point) uint64 {
		if p.Group == "tool name" || p.Group == "tool input" {
			return 0
		}
		return oneGap(p)
	}
	na := map[string]string{"grant-immutable": "a real sandbox's grant cannot be read back"}
	for _, c := range []struct {
		checks    int
		explained bool
	}{{4, false}, {reports.FullChecks, true}} {
		r := handMadeOf(t, c.checks, hits, na)
		n := 0
		for _, g := range r.DimensionGaps {
			if g.Group != "tool name" && g.Group != "tool input" {
				continue
			}
			n++
			if g.Explained != c.explained {
				t.Errorf("%d checks: %+v; want explained %v", c.checks, g, c.explained)
			}
		}
		if n == 0 {
			t.Errorf("%d checks: no gap in the tool groups", c.checks)
		}
	}
}

// TestKindsTableMarksNotApplicableKinds: a kind the sandbox's door can
// never give is n/a in the kinds table's total row, as the summary counts
// it, not NEVER, the mark of a kind the campaign should have reached.
func TestKindsTableMarksNotApplicableKinds(t *testing.T) {
	s := campaign.Summarize(campaignResult(t, 1), "osroot")
	for i := range s.Classes {
		delete(s.Classes[i].Kinds, "tool_denied")
	}
	s.MarkKindsNotApplicable(map[string]string{"tool_denied": "the sandbox has file tools only"})
	for _, r := range builtAndLoaded(t, s) {
		text := render(t, r, reports.Text)
		var total string
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, "all classes") {
				total = l // the kinds table is the last with such a row
			}
		}
		cells := strings.FieldsFunc(total, func(r rune) bool { return r == '│' })
		if len(cells) < 2+7 {
			t.Fatalf("the kinds table's total row: %q", total)
		}
		// class, ops, then the kinds of SPEC §2 in order: tool_denied is the 7th.
		if got := strings.TrimSpace(cells[2+6]); got != "n/a" {
			t.Errorf("tool_denied's total cell is %q, want n/a: %q", got, total)
		}
	}
}
