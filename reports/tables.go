package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
)

// Write renders the report in format f: the tables in text or Markdown,
// or the JSON of SPEC §11 with the gaps, the kinds never reached, the
// dimension table with its gaps and the kill table added. The same report always renders the same bytes.
func (r *Report) Write(w io.Writer, f Format) error {
	if f == JSON {
		c := *r
		c.Warnings = r.SandboxWarnings()
		return writeJSON(w, &c)
	}
	d, err := newDoc(w, f)
	if err != nil {
		return err
	}
	r.writeHead(d)
	r.writeSummary(d)
	r.writeFindings(d)
	r.writeStricter(d)
	r.writeInvariants(d)
	r.writeMatrix(d)
	r.writeGaps(d)
	r.writeKinds(d)
	r.writeDimensions(d)
	if r.Mutants != nil {
		d.heading(2, "Mutant kill table")
		d.para(fmt.Sprintf("A campaign from seed %d against each mutant — a sandbox wrong in exactly one way real sandboxes have been wrong — until its first finding: the invariant that caught it, the checks it took, and the length of the minimized reproducer.", r.Seed))
		writeKills(d, r.Mutants, false)
	}
	return d.err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// SetImage makes a Markdown report show the heat map found at path,
// relative to the report's file (as written by WriteSVG).
func (r *Report) SetImage(path string) { r.image = path }

// SetCommand makes the commands the report prints, that reproduce it or
// write its findings, start with words, the way the program that made it
// is run ("mysbx", "go run ./cmd/mysbx"); by default they start with
// "sbxfuzz".
func (r *Report) SetCommand(words string) { r.command = words }

// invocation is the words that start the report's commands.
func (r *Report) invocation() string {
	if r.command == "" {
		return "sbxfuzz"
	}
	return r.command
}

func (r *Report) writeHead(d *doc) {
	d.heading(1, "sbxfuzz report: invariant coverage")
	if d.md && r.image != "" {
		link := r.image
		if strings.ContainsAny(link, " ()<>") {
			link = "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(link) + ">"
		}
		d.printf("![Invariants × attack classes: checks per cell, log-scaled; gaps and violations marked. SPEC dimensions: a cell per point, shaded by its hits; gaps marked](%s)\n\n", link)
	}
	d.para(r.headline(d))
	for _, s := range r.warnings() {
		d.warn(s)
	}
	if s := r.shortNote(); s != "" {
		d.para(s)
	}
	cmd := r.campaignCommand("report")
	if r.Mutants != nil {
		cmd += " --mutants"
	}
	d.para("Reproduce with " + d.span(cmd) + ".")
}

// campaignCommand is the command line of sbxfuzz verb (run, report) that
// draws this campaign again: its seed, its drawn scenarios, its sandbox
// and the flags that configure it (--profile).
func (r *Report) campaignCommand(verb string) string {
	checks := r.Checks
	if r.Drawn > checks { // an adapter skipped scenarios it could express nothing of
		checks = r.Drawn
	}
	cmd := fmt.Sprintf("%s %s --seed %d --checks %d --sut %s", r.invocation(), verb, r.Seed, checks, finding.QuoteArg(r.SUT))
	for _, f := range r.SUTFlags {
		cmd += " " + finding.QuoteArg(f)
	}
	return cmd
}

// headline is the report in one sentence.
func (r *Report) headline(d *doc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Seed %d, sandbox %s: %d checks, %d ops; ", r.Seed, d.span(r.SUT), r.Checks, r.Ops)
	switch n := len(r.Findings); n {
	case 0:
		b.WriteString("no findings; ")
	default:
		fmt.Fprintf(&b, "%s; ", d.strong(plural(n, "finding")))
	}
	fmt.Fprintf(&b, "%d of %d invariants checked; ", r.invariantsChecked(), len(r.Invariants))
	un := len(r.UnexplainedGaps())
	switch {
	case len(r.Gaps) == 0:
		b.WriteString("no gaps; ")
	case un == 0:
		fmt.Fprintf(&b, "%s, all explained; ", plural(len(r.Gaps), "gap"))
	default:
		fmt.Fprintf(&b, "%s, %s; ", plural(len(r.Gaps), "gap"), r.unexplainedCount(d, un))
	}
	b.WriteString(r.dimensionsHeadline(d))
	fmt.Fprintf(&b, "%s result kinds reached", r.kindsCell())
	if r.Mutants != nil {
		fmt.Fprintf(&b, "; %d of %d mutants killed", len(r.Mutants)-len(r.Survivors()), len(r.Mutants))
	}
	return b.String() + "."
}

// kindsCell is how many result kinds the campaign reached of those it
// could: "5 of 5 (8 n/a)".
func (r *Report) kindsCell() string {
	cell := fmt.Sprintf("%d of %d", r.reachableKinds()-len(r.UnreachedKinds), r.reachableKinds())
	if n := len(r.KindsNotApplicable); n > 0 {
		cell += fmt.Sprintf(" (%d n/a)", n)
	}
	return cell
}

// warnings are what the report must say loudly. A cell or point nothing
// explains is one of them only in a full campaign (Full); a short one says
// so in a note (shortNote).
func (r *Report) warnings() []string {
	var out []string
	if r.Interrupted {
		out = append(out, "The campaign was interrupted: the counts cover the checks done so far.")
	}
	if n := len(r.Findings); n > 0 {
		out = append(out, fmt.Sprintf("%s: the sandbox under test violated %s.", plural(n, "finding"), strings.Join(r.violatedInvariants(), ", ")))
	}
	if gs := r.UnexplainedGaps(); len(gs) > 0 && r.Full() {
		cells := make([]string, len(gs))
		for i, g := range gs {
			cells[i] = g.Invariant + " × " + g.Class
		}
		out = append(out, fmt.Sprintf("%s: no check reached %s, and nothing explains why.", plural(len(gs), "unexplained gap"), strings.Join(cells, ", ")))
	}
	if gs := r.UnexplainedDimensionGaps(); len(gs) > 0 && r.Full() {
		out = append(out, dimensionsWarning(gs))
	}
	for _, w := range r.SandboxWarnings() {
		out = append(out, w+".")
	}
	if len(r.UnreachedKinds) > 0 {
		out = append(out, "Result kinds never reached: "+strings.Join(r.UnreachedKinds, ", ")+".")
	}
	if s := r.Survivors(); len(s) > 0 {
		out = append(out, fmt.Sprintf("%s survived: %s.", plural(len(s), "mutant"), strings.Join(s, ", ")))
	}
	return out
}

func (r *Report) violatedInvariants() []string {
	var out []string
	for _, row := range r.Invariants {
		for _, f := range r.Findings {
			if f.Invariant == row.ID {
				out = append(out, row.ID)
				break
			}
		}
	}
	return out
}

func (r *Report) invariantsChecked() int {
	n := 0
	for _, row := range r.Invariants {
		if row.Checked > 0 {
			n++
		}
	}
	return n
}

func (r *Report) classesRun() int {
	n := 0
	for _, row := range r.Classes {
		if row.Ops > 0 && row.ID != attack.Unlabelled.String() {
			n++
		}
	}
	return n
}

func (r *Report) writeSummary(d *doc) {
	d.heading(2, "Summary")
	un := len(r.UnexplainedGaps())
	rows := [][]string{
		{"seed", fmt.Sprint(r.Seed)},
		{"sandbox", d.code(r.SUT)},
		{"checks", fmt.Sprint(r.Checks)},
		{"scenarios", fmt.Sprint(r.Scenarios)},
		{"ops", fmt.Sprint(r.Ops)},
		{"ops/s", Rate(r.OpsPerSecond)},
		{"seconds", r.secondsCell()},
		{"findings", r.findingsCell()},
		{"invariants checked", fmt.Sprintf("%d of %d", r.invariantsChecked(), len(r.Invariants))},
		{"attack classes run", fmt.Sprintf("%d of %d", r.classesRun(), len(attack.All()))},
		{"gaps", fmt.Sprintf("%d: %d explained, %s", len(r.Gaps), len(r.Gaps)-un, r.unexplainedCount(d, un))},
		{"result kinds reached", r.kindsCell()},
		{"SPEC dimension points hit", r.dimensionsCell(d)},
	}
	if n := r.stricterOps(); n > 0 {
		rows = append(rows, []string{"ops stricter than the model", fmt.Sprintf("%d (%s)", n, d.text(r.stricterCounts()))})
	}
	if r.AllowedPassed != nil {
		rows = append(rows, []string{"ops the model allows let through", fmt.Sprint(*r.AllowedPassed) + r.allowedSplit()})
	}
	if r.RefusedOps > 0 {
		rows = append(rows, []string{"ops the model refuses let through", fmt.Sprintf("%d of %d", r.RefusedLetThrough, r.RefusedOps) + r.refusedSplit()})
	}
	if r.SkippedStdoutLines > 0 {
		rows = append(rows, []string{"non-JSON stdout lines skipped", fmt.Sprint(r.SkippedStdoutLines)})
	}
	if r.Mutants != nil {
		rows = append(rows, []string{"mutants killed", fmt.Sprintf("%d of %d", len(r.Mutants)-len(r.Survivors()), len(r.Mutants))})
	}
	d.table([]column{{"measure", false}, {"value", false}}, rows)
}

// secondsCell is the campaign's time, and the part of it spent
// minimizing after the checks when that is long enough to show: the rate
// of ops is over the checks' time alone.
func (r *Report) secondsCell() string {
	if after := r.ElapsedSeconds - r.CheckedSeconds; r.CheckedSeconds > 0 && after >= 1 {
		return fmt.Sprintf("%.3f (checks %.3f, then minimizing %.3f)", r.ElapsedSeconds, r.CheckedSeconds, after)
	}
	return fmt.Sprintf("%.3f", r.ElapsedSeconds)
}

func (r *Report) findingsCell() string {
	if len(r.Findings) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", len(r.Findings), strings.Join(r.violatedInvariants(), ", "))
}

func (r *Report) writeFindings(d *doc) {
	d.heading(2, "Findings")
	if len(r.Findings) == 0 {
		d.para("None: every invariant held on every op.")
		return
	}
	cols := []column{{"invariant", false}, {"class", false}, {"check", true}, {"step", true}, {"ops", true}, {"minimized", true}, {"detail", false}, {"file", false}}
	var rows [][]string
	for _, f := range r.Findings {
		rows = append(rows, []string{d.text(f.Invariant), d.text(f.Class), fmt.Sprint(f.Check), fmt.Sprint(f.Step), fmt.Sprint(f.OriginalOps),
			fmt.Sprint(f.MinimizedOps), d.prose(f.Detail), d.code(f.File)})
	}
	if r.Findings[0].File == "" {
		d.para(d.span(r.campaignCommand("run")) + " writes their minimized reproducers to " + d.span("sbxfuzz/findings/"+finding.DirName(finding.SUTKey(r.SUT, r.SUTFlags))) + " under the user's cache directory, and names it; " + d.span("--out DIR") + " writes them to DIR instead.")
		cols = cols[:len(cols)-1]
		for i := range rows {
			rows[i] = rows[i][:len(rows[i])-1]
		}
	}
	d.table(cols, rows)
}

// writeStricter lists the ops a real sandbox refused that the model
// allows, per reason, when there were any.
func (r *Report) writeStricter(d *doc) {
	if r.stricterOps() == 0 {
		return
	}
	d.heading(2, "Stricter than the model")
	d.para("Ops the sandbox refused that the model allows, and that its profile does not promise to allow (SPEC §14): stricter, not broken, so not findings; the model's answer stood in for each, so the ops after it were judged on the same world.")
	var rows [][]string
	for _, reason := range r.stricterReasons() {
		example := "-" // a summary saved before examples were kept
		if ex := r.StricterExamples[reason]; ex != "" {
			example = d.code(ex)
		}
		rows = append(rows, []string{d.text(reason), fmt.Sprint(r.Stricter[reason]), example})
	}
	d.table([]column{{"reason", false}, {"ops", true}, {"one of them", false}}, rows)
}

func (r *Report) writeInvariants(d *doc) {
	d.heading(2, "Invariants")
	d.para("Each invariant of SPEC §8: how often it was checked (only where it applies: no-effect-on-denial after a denial, no-internal-egress on net_fetch ops, halt-latched after a halt), how often it was violated, and by how many attack classes of SPEC §9 it was exercised.")
	var rows [][]string
	for _, row := range r.Invariants {
		reached, explained, unexplained := 0, []string{}, []string{}
		for _, c := range attack.All() {
			switch g, isGap := r.gapAt(row.ID, c.String()); {
			case !isGap:
				reached++
			case g.Explained:
				explained = append(explained, c.String())
			default:
				unexplained = append(unexplained, c.String())
			}
		}
		var gaps []string
		if why, ok := r.NotApplicable[row.ID]; ok {
			rows = append(rows, []string{d.code(row.ID), "n/a", "n/a", "0 of " + fmt.Sprint(len(attack.All())), d.prose("n/a: " + why)})
			continue
		}
		if len(unexplained) > 0 {
			gaps = append(gaps, r.unexplainedList(d, unexplained))
		}
		if len(explained) > 0 {
			gaps = append(gaps, "n/a: "+strings.Join(explained, ", "))
		}
		if len(gaps) == 0 {
			gaps = []string{"none"}
		}
		rows = append(rows, []string{d.code(row.ID), fmt.Sprint(row.Checked), fmt.Sprint(row.Violations),
			fmt.Sprintf("%d of %d", reached, len(attack.All())), strings.Join(gaps, "; ")})
	}
	d.table([]column{{"invariant", false}, {"checked", true}, {"violations", true}, {"classes", true}, {"gaps", false}}, rows)
}

// matrixCell is one cell of invariants × classes in a table.
func (r *Report) matrixCell(d *doc, row InvariantRow, class string) string {
	n := row.ByClass[class]
	if n == 0 {
		if g, _ := r.gapAt(row.ID, class); g.Explained {
			return "n/a"
		}
		if !r.Full() {
			return "0" // not hit in a short campaign: not yet a gap
		}
		return d.strong("GAP")
	}
	s := fmt.Sprint(n)
	switch v, known, marked := r.violated(row, class); {
	case known && marked:
		s += fmt.Sprintf(" ✗%d", v)
	case marked:
		s += " ✗"
	}
	return s
}

func (r *Report) writeMatrix(d *doc) {
	d.heading(2, "Invariants × attack classes")
	d.para("Checks of each invariant (column) on ops of each attack class (row). ✗N: N of them violated it. n/a: a gap that cannot be filled, explained below. " + r.unhitLegend("0", "a cell no check reached"))
	cols := []column{{"class", false}}
	for _, row := range r.Invariants {
		cols = append(cols, column{row.ID, true})
	}
	var rows [][]string
	for _, c := range attack.All() {
		cells := []string{d.code(c.String())}
		for _, row := range r.Invariants {
			cells = append(cells, r.matrixCell(d, row, c.String()))
		}
		rows = append(rows, cells)
	}
	total := []string{"all classes"}
	for _, row := range r.Invariants {
		cell := fmt.Sprint(row.Checked)
		if row.Violations > 0 {
			cell += fmt.Sprintf(" ✗%d", row.Violations)
		}
		total = append(total, cell)
	}
	d.table(cols, append(rows, total))
}

func (r *Report) writeGaps(d *doc) {
	d.heading(3, "Gaps")
	if len(r.Gaps) == 0 {
		d.para("None: every invariant was checked on ops of every attack class.")
		return
	}
	if r.Full() {
		d.para("Every (invariant, attack class) cell with no checks, and why it is empty. An unexplained gap is a case the generators should make and do not.")
	} else {
		d.para(fmt.Sprintf("Every (invariant, attack class) cell with no checks, and why it is empty: for a reason, or not hit in these %d checks, a short campaign.", r.Checks))
	}
	var rows [][]string
	for _, g := range r.Gaps {
		why := d.prose(g.Explanation)
		if !g.Explained && r.Full() {
			why = d.strong(g.Explanation)
		}
		rows = append(rows, []string{d.code(g.Invariant), d.code(g.Class), why})
	}
	d.table([]column{{"invariant", false}, {"class", false}, {"explanation", false}}, rows)
}

func (r *Report) writeKinds(d *doc) {
	d.heading(2, "Attack classes × result kinds")
	d.para("How often the ops of each attack class got each result kind of SPEC §2 (· for never): whether, say, " + d.span("ip-spelling") + " ever reached " + d.span("egress_internal") + ".")
	cols := []column{{"class", false}, {"ops", true}}
	for k := core.OK; k < core.NumKinds; k++ {
		cols = append(cols, column{k.String(), true})
	}
	var rows [][]string
	for _, row := range r.Classes {
		cells := []string{d.code(row.ID), fmt.Sprint(row.Ops)}
		for k := core.OK; k < core.NumKinds; k++ {
			cells = append(cells, dotIfZero(row.Kinds[k.String()]))
		}
		rows = append(rows, cells)
	}
	total := []string{"all classes", fmt.Sprint(r.Ops)}
	for k := core.OK; k < core.NumKinds; k++ {
		cell := dotIfZero(r.kindTotal(k.String()))
		if _, na := r.KindsNotApplicable[k.String()]; na && cell == "·" {
			cell = "n/a" // the door never gives it: not a kind the campaign missed
		} else if cell == "·" {
			cell = d.strong("never")
		}
		total = append(total, cell)
	}
	d.table(cols, append(rows, total))
}

func dotIfZero(n uint64) string {
	if n == 0 {
		return "·"
	}
	return fmt.Sprint(n)
}

// WriteKills renders the mutant kill table of `sbxfuzz mutants` in format
// f: JSON as the list of Kill, else a table with a seconds column
// (so, unlike a report, not the same bytes from run to run).
func WriteKills(w io.Writer, f Format, kills []Kill) error {
	if f == JSON {
		return writeJSON(w, kills)
	}
	d, err := newDoc(w, f)
	if err != nil {
		return err
	}
	writeKills(d, kills, true)
	return d.err
}

// writeKills writes the kill table, with each kill's seconds or, in
// Markdown without them, each mutant's red flag.
func writeKills(d *doc, kills []Kill, seconds bool) {
	cols := []column{{"mutant", false}, {"killed", false}, {"invariant", false}, {"checks", true}}
	if seconds {
		cols = append(cols, column{"seconds", true})
	}
	cols = append(cols, column{"reproducer ops", true})
	redFlag := d.md && !seconds
	if redFlag {
		cols = append(cols, column{"red flag", false})
	}
	var rows [][]string
	for _, k := range kills {
		killed, inv := d.strong("no"), "-"
		if k.Killed {
			killed, inv = "yes", d.text(k.Invariant)
		}
		cells := []string{d.code(k.Mutant), killed, inv, fmt.Sprint(k.Checks)}
		if seconds {
			cells = append(cells, fmt.Sprintf("%.3f", k.Seconds))
		}
		cells = append(cells, fmt.Sprint(k.ReproducerOps))
		if redFlag {
			cells = append(cells, d.prose(k.RedFlag))
		}
		rows = append(rows, cells)
	}
	d.table(cols, rows)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
