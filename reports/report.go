package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Report is an invariant coverage report: a campaign's summary (the JSON of
// SPEC §11), its invariant rows with violations per class, the gaps, the
// result kinds never reached, the SPEC dimension table with its gaps (when
// the campaign counted the dimensions) and, when the mutants were run, the
// kill table. Its JSON form is Summary's with those fields added, and Load
// reads either. Build one with New or Load; the zero Report is empty.
// A Report is not safe for concurrent mutation.
type Report struct {
	Summary
	// Invariants shadows Summary.Invariants (left nil): every invariant of
	// the catalogue, in its order.
	Invariants []InvariantRow `json:"invariants"`
	// Gaps are the (invariant, class) cells never checked, in table order.
	Gaps []Gap `json:"gaps"`
	// UnreachedKinds are the result kinds no op of any class produced.
	UnreachedKinds []string `json:"unreached_kinds"`
	// DimensionRows is the SPEC dimension table, a row per (dimension,
	// group) in the catalogue's order (package dims); nil when the
	// summary carries no dimension points (Summary.Dimensions).
	DimensionRows []DimensionRow `json:"dimension_rows"`
	// DimensionGaps are the points no scenario hit, in catalogue order;
	// nil when the summary carries no dimension points.
	DimensionGaps []DimensionGap `json:"dimension_gaps"`
	// Mutants is the kill table, when the report ran the mutants.
	Mutants []Kill `json:"mutants,omitempty"`

	image   string // the heat map's path for Markdown (SetImage)
	command string // the words that run the command line (SetCommand)
}

// InvariantRow is an invariant's row of the report: its checks and
// violations (InvariantChecks) with the violations per class.
// ViolationsByClass is nil when they are not known (a report loaded from a
// run's summary, which carries only the total): the table then marks the
// classes of the findings.
type InvariantRow struct {
	InvariantChecks
	ViolationsByClass map[string]uint64 `json:"violations_by_class"`
}

// Gap is an (invariant, attack class) cell with no checks. Explanation says
// why the cell is structurally empty; when nothing does (Explained false),
// it is "unexplained" in a full campaign and "not hit in N checks" in a
// short one (Report.Full).
type Gap struct {
	Invariant   string `json:"invariant"`
	Class       string `json:"class"`
	Explained   bool   `json:"explained"`
	Explanation string `json:"explanation"`
}

// Unexplained is the Explanation of a gap Explain knows no reason for, in a
// full campaign (Report.Full).
const Unexplained = "unexplained"

// Full reports whether the report's campaign made at least
// FullChecks checks, the default campaign's. Only then is a cell
// or a point no check reached, for no structural reason, a gap the
// generators should fill — GAP, the generators' fault; in a shorter campaign
// it was merely not hit in that many checks, which says more about the
// sample than about the generators.
func (r *Report) Full() bool { return r.Checks >= FullChecks }

// unexplained is the Explanation of a gap or a dimension point nothing
// explains: "unexplained" in a full campaign, "not hit in N checks" in a
// short one.
func (r *Report) unexplained() string {
	if r.Full() {
		return Unexplained
	}
	return fmt.Sprintf("not hit in %d checks", r.Checks)
}

// New builds the report of a finished campaign from its summary, as the
// campaign filled it, and the violations of each invariant (by ID) per
// attack class. With violations nil they are not known, as in a report
// loaded from a run's summary (InvariantRow.ViolationsByClass).
func New(sum Summary, violations map[string]map[string]uint64) *Report {
	r := &Report{Summary: sum}
	for _, row := range sum.Invariants {
		var v map[string]uint64
		if violations != nil {
			v = maps.Clone(violations[row.ID])
			if v == nil {
				v = map[string]uint64{}
			}
		}
		r.Invariants = append(r.Invariants, InvariantRow{InvariantChecks: row, ViolationsByClass: v})
	}
	r.Summary.Invariants = nil
	r.derive()
	return r
}

// Load reads a report from the JSON that `sbxfuzz run --format json`
// (a Summary) or `sbxfuzz report --format json` wrote. It checks
// that every invariant, class, kind and dimension point is one of the
// SPEC's, puts the rows in the SPEC's order, and recomputes the gaps and
// the dimension table. A summary without dimension points (saved before
// they were counted) loads without the table.
func Load(rd io.Reader) (*Report, error) {
	var r Report
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a campaign summary: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a campaign summary: more than one JSON value")
	}
	if err := r.normalize(); err != nil {
		return nil, err
	}
	r.derive()
	return &r, nil
}

// normalize validates the rows of a loaded report and orders them as the
// SPEC does.
func (r *Report) normalize() error {
	byID := map[string]InvariantRow{}
	for _, row := range r.Invariants {
		if _, ok := judge.ParseID(row.ID); !ok {
			return fmt.Errorf("unknown invariant %q", row.ID)
		}
		if _, dup := byID[row.ID]; dup {
			return fmt.Errorf("invariant %q listed twice", row.ID)
		}
		if err := knownClasses(row.ID, row.ByClass); err != nil {
			return err
		}
		if err := knownClasses(row.ID, row.ViolationsByClass); err != nil {
			return err
		}
		byID[row.ID] = row
	}
	r.Invariants = r.Invariants[:0]
	for _, inv := range oracle.Invariants() {
		row, ok := byID[inv.Name]
		if !ok {
			return fmt.Errorf("invariant %q missing: not a summary of this version's catalogue", inv.Name)
		}
		r.Invariants = append(r.Invariants, row)
	}
	r.Summary.Invariants = nil
	for _, reason := range r.stricterReasons() { // sorted: one error for one input
		if n := r.Stricter[reason]; n < 0 {
			return fmt.Errorf("stricter: %d ops for %q", n, reason)
		}
	}
	if r.WholeReads < 0 {
		return fmt.Errorf("whole_reads: %d", r.WholeReads)
	}
	if r.SkippedStdoutLines < 0 {
		return fmt.Errorf("skipped_stdout_lines: %d", r.SkippedStdoutLines)
	}
	if err := r.normalizeClasses(); err != nil {
		return err
	}
	return r.normalizeDims()
}

func knownClasses(inv string, m map[string]uint64) error {
	for _, c := range slices.Sorted(maps.Keys(m)) { // the first unknown, alphabetically
		if _, ok := attack.Parse(c); !ok {
			return fmt.Errorf("invariant %q: unknown attack class %q", inv, c)
		}
	}
	return nil
}

func (r *Report) normalizeClasses() error {
	byID := map[string]ClassRow{}
	for _, row := range r.Classes {
		if _, ok := attack.Parse(row.ID); !ok {
			return fmt.Errorf("unknown attack class %q", row.ID)
		}
		if _, dup := byID[row.ID]; dup {
			return fmt.Errorf("attack class %q listed twice", row.ID)
		}
		for _, k := range slices.Sorted(maps.Keys(row.Kinds)) {
			if _, ok := scenario.ParseKind(k); !ok {
				return fmt.Errorf("attack class %q: unknown result kind %q", row.ID, k)
			}
		}
		byID[row.ID] = row
	}
	r.Classes = r.Classes[:0]
	for _, c := range append(attack.All(), attack.Unlabelled) {
		row, ok := byID[c.String()]
		switch {
		case ok:
			r.Classes = append(r.Classes, row)
		case c != attack.Unlabelled:
			r.Classes = append(r.Classes, ClassRow{ID: c.String(), Kinds: map[string]uint64{}})
		}
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	return nil
}

// MarkKindsNotApplicable declares the result kinds of na (kind → reason)
// beyond what the sandbox's door asks: a campaign that never reached them
// is not warned of it.
func (r *Report) MarkKindsNotApplicable(na map[string]string) {
	if len(na) == 0 {
		return
	}
	r.Summary.MarkKindsNotApplicable(na)
	r.derive()
}

// reachableKinds is how many result kinds a campaign of the sandbox can
// reach: every kind of SPEC §2 from ok on, less those not applicable.
func (r *Report) reachableKinds() int {
	return int(core.NumKinds-core.OK) - len(r.KindsNotApplicable)
}

// MarkNotApplicable declares the invariants of na (ID → reason) not
// applicable to the sandbox: their checks, which would only have tested
// the harness's stand-in for what cannot be observed, are dropped, and
// every cell of theirs is a gap explained by the reason. A report with
// such a table is of a real sandbox, whose adapter draws only the ops it
// can express: a class with no op at all in a full campaign (Full) is
// explained as such.
func (r *Report) MarkNotApplicable(na map[string]string) {
	if len(na) == 0 {
		return
	}
	r.Summary.MarkNotApplicable(na)
	for i := range r.Invariants {
		if _, ok := na[r.Invariants[i].ID]; ok {
			r.Invariants[i].InvariantChecks.notApplicable()
		}
	}
	r.derive()
}

// notExpressed explains a class the adapter of a real sandbox never drew.
const notExpressed = "n/a: the sandbox's adapter draws no op of this class (it cannot express it)"

// derive computes the gaps, the kinds never reached and the dimension
// table.
func (r *Report) derive() {
	r.Gaps = []Gap{}
	for _, row := range r.Invariants {
		id, _ := judge.ParseID(row.ID)
		for _, c := range attack.All() {
			if row.ByClass[c.String()] > 0 {
				continue
			}
			g := Gap{Invariant: row.ID, Class: c.String(), Explanation: r.unexplained()}
			why, ok := Explain(id, c)
			switch na, isNA := r.NotApplicable[row.ID]; {
			case isNA:
				why, ok = "n/a: "+na, true
			case r.NotApplicable != nil && r.Full() && r.classOps(c.String()) == 0:
				// Only a full campaign draws every class: in a short one,
				// a class may have no op for want of checks.
				why, ok = notExpressed, true
			}
			if ok {
				g.Explained, g.Explanation = true, why
			}
			r.Gaps = append(r.Gaps, g)
		}
	}
	r.UnreachedKinds = []string{}
	for k := core.OK; k < core.NumKinds; k++ {
		if _, na := r.KindsNotApplicable[k.String()]; !na && r.kindTotal(k.String()) == 0 {
			r.UnreachedKinds = append(r.UnreachedKinds, k.String())
		}
	}
	r.deriveDims()
}

// classOps returns how many ops of class ran.
func (r *Report) classOps(class string) uint64 {
	for _, row := range r.Classes {
		if row.ID == class {
			return row.Ops
		}
	}
	return 0
}

func (r *Report) kindTotal(kind string) uint64 {
	var n uint64
	for _, row := range r.Classes {
		n += row.Kinds[kind]
	}
	return n
}

// UnexplainedGaps returns the gaps Explain has no reason for: in a full
// campaign, cells the generators should reach and did not; in a short one,
// cells not hit in its checks.
func (r *Report) UnexplainedGaps() []Gap {
	var out []Gap
	for _, g := range r.Gaps {
		if !g.Explained {
			out = append(out, g)
		}
	}
	return out
}

// Survivors returns the mutants of the kill table that were not killed.
func (r *Report) Survivors() []string {
	var out []string
	for _, k := range r.Mutants {
		if !k.Killed {
			out = append(out, k.Mutant)
		}
	}
	return out
}

// gapAt returns the gap of the cell, if it is one.
func (r *Report) gapAt(inv, class string) (Gap, bool) {
	for _, g := range r.Gaps {
		if g.Invariant == inv && g.Class == class {
			return g, true
		}
	}
	return Gap{}, false
}

// violated reports the violations of a cell: their number, or, when the
// report knows only the findings, 0 with known false and marked true when a
// finding of that invariant came from that class.
func (r *Report) violated(row InvariantRow, class string) (n uint64, known, marked bool) {
	if row.ViolationsByClass != nil {
		n = row.ViolationsByClass[class]
		return n, true, n > 0
	}
	for _, f := range r.Findings {
		if f.Invariant == row.ID && f.Class == class {
			return 0, false, true
		}
	}
	return 0, false, false
}

// IsTimingLine reports whether a line of a rendered report carries timing
// (throughput or seconds) and so may differ between runs of the same seed
// and checks.
func IsTimingLine(line string) bool {
	return strings.Contains(line, "ops/s") || strings.Contains(line, "seconds")
}
