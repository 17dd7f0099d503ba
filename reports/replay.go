package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sbxfuzz/sbxfuzz/internal/door"
)

// Replay is the replay of one scenario file on a sandbox with the oracle
// watching every op (sbxfuzz replay): the step table, the invariants
// violated, and the steps the sandbox could not be asked. The replay
// fills it; WriteReplay renders it. The zero Replay is that of a file with
// no steps.
type Replay struct {
	File       string       // the scenario file's name
	SUT        string       // the sandbox's --sut name, which the lines on skipped steps name
	Steps      []ReplayStep // in the order they ran
	Violations []Violation  // the invariants violated, in the oracle's order
	// Skipped lists the file's steps the sandbox cannot express (its
	// adapter leaves them out, as a campaign does): not run, not judged.
	Skipped []int
	// NotHeld lists the file's steps whose expectation was not held: on
	// what the sandbox can be asked, SPEC §5 gives another result.
	NotHeld []int
	// NotRun is set when the sandbox can express none of the steps: nothing
	// ran, and Steps is empty.
	NotRun bool
	// WhyNotRun says, with NotRun, why the sandbox can express none of
	// the steps, where its door can tell ("" when it cannot).
	WhyNotRun string
	// Asks says what the sandbox is asked of a scenario, the reason for
	// Skipped ("" when its door does not say).
	Asks string
	// Stricter counts, by reason, the ops the sandbox refused that the
	// model allows (SPEC §14): not judged, their steps showing the
	// model's answer, so that the run goes on as the model's does.
	Stricter map[string]int64
	// WrittenStricter is the reason a run counted the ops of the file
	// under when it wrote it as an example of a stricter sandbox (its
	// header says so), or "": a replay that counts none under it says
	// that the refusal did not recur.
	WrittenStricter string
}

// ReplayStep is one op of a Replay, numbered as in the file.
type ReplayStep struct {
	Step int    // 1-based, as in the file
	Line int    // the op's line in the file, 0 when unknown
	Op   string // the op as a scenario writes it
	Kind string // the result's kind (SPEC §2)
	Data string // the result's data
	// Result is the result as the table shows it: the kind and, when
	// there is any, the data, quoted as a scenario writes an expectation.
	Result string
	Hard   bool
	// OpsUsed, WallUsed and OutputUsed are the sandbox's usage of its
	// budgets (SPEC §5) after the op.
	OpsUsed, WallUsed, OutputUsed int64
	Journal                       []string // the entries the op added to the journal
	Unmet                         string   // why the op's expectation failed; "" when met, or when there is none
	// Violated names the invariants the op violated. The first violation
	// of each is in Replay.Violations, with its words; the table marks the
	// later ones, which a campaign counts but writes no finding for.
	Violated []string
	// Stricter is the reason the sandbox refused the op where the model
	// allows it (SPEC §14: not judged; the step shows the model's
	// answer), or "".
	Stricter string
	// ModelJournal is set on a refusal whose journal the door wrote as the
	// model's, the sandbox having made none (a proxy that refused an
	// internal host without looking it up).
	ModelJournal bool
	// Modelled is set on an op after an exec: child's stricter refusal
	// earlier in the scenario: the model's answer stands in for its
	// verdict, and only what it did in the world is judged (it is not
	// asked the ops after the one the model halts on).
	Modelled bool
	// Cleaned is, for an op whose path has ".." or "\" sent to a server
	// that reads them by a policy of its own, the server's answer in words: the
	// step shows the model's answer, and what the server did is judged.
	Cleaned string
	// Unknown is, for an op the sandbox refused in words its profile does
	// not tell (neither a denial's nor a missing file's), those words: the
	// step shows the refusal the model gives.
	Unknown string
	// Said is, for an op the sandbox refused or found nothing for in
	// words of its own, those words: the step shows the kind they are
	// read as (a denial of a path with ".." reads path_traversal: a real
	// sandbox says it denied, not why).
	Said string
	// Landed is set on an op the model denies for its path that the
	// sandbox, which judges where an op lands, allowed where the world's
	// links lead it, under a root: the step shows the model's answer.
	Landed bool
	// Parted is set on an op after such a write changed the sandbox's
	// tree, which is then not the model's: the step shows the model's
	// answer, and what the sandbox did is judged.
	Parted bool
	// Bare is set on a fetch during which the sandbox connected to the
	// world and sent no request: the journal's fetch of it is that
	// connection (SPEC §14), not a request sent.
	Bare bool
	// Kept is set on a fetch of a name the sandbox connected for with no
	// lookup of it in the op, from an answer it kept: the journal's
	// resolve before it is the world's, which the sandbox never saw.
	Kept bool
	// LineMoved is set on a fetch the sandbox let through on lookups of
	// its own that all answered a public address, where the model's one
	// lookup answers an internal one: the model's answer stands in.
	LineMoved bool
}

// Violation is an invariant a replay found violated, at a step (0 when the
// violation is of the run as a whole).
type Violation struct {
	Invariant string
	Step      int
	Detail    string
	// Hang is set on a total violation of an op (or a build) that did not
	// return in time: on a loaded machine, a slow one may.
	Hang bool
}

// String returns "invariant: step N: detail", or "invariant: detail" for
// a violation of the whole run.
func (v Violation) String() string {
	if v.Step == 0 {
		return fmt.Sprintf("%s: %s", v.Invariant, v.Detail)
	}
	return fmt.Sprintf("%s: step %d: %s", v.Invariant, v.Step, v.Detail)
}

// Unmet returns the steps whose expectations failed.
func (r *Replay) Unmet() []ReplayStep {
	var out []ReplayStep
	for _, s := range r.Steps {
		if s.Unmet != "" {
			out = append(out, s)
		}
	}
	return out
}

// asked is the clause that says what the sandbox is asked, after the
// line on skipped steps.
func (r *Replay) asked() string {
	if r.Asks == "" {
		return ""
	}
	if r.WhyNotRun != "" {
		return "; it is asked " + r.Asks
	}
	return ": it is asked " + r.Asks
}

// NotRecurred reports whether the file was written as an example of
// ops stricter than the model and the replay counted none under its
// reason.
func (r *Replay) NotRecurred() bool {
	return r.WrittenStricter != "" && !r.NotRun && r.Stricter[r.WrittenStricter] == 0
}

// Failed reports whether the replay found anything: a violated invariant
// or an unmet expectation.
func (r *Replay) Failed() bool { return len(r.Violations) > 0 || len(r.Unmet()) > 0 }

// WriteReplay renders a replay in format f, Text or JSON: the step table —
// step, op, result, hard, ops/wall/output used, what the step added to the
// journal — followed by the unmet expectations, the violations and the
// verdict in plain words; or the JSON of SPEC §11 (steps, journal,
// violations) with the unmet expectations, the skipped steps and the
// expectations not held.
func WriteReplay(w io.Writer, f Format, r *Replay) error {
	switch f {
	case Text:
		return writeReplayText(w, r)
	case JSON:
		return writeReplayJSON(w, r)
	}
	return fmt.Errorf("a replay renders as %s or %s, not %q", Text, JSON, f)
}

func writeReplayText(w io.Writer, r *Replay) error {
	fmt.Fprintf(w, "%s\n", r.File)
	if r.NotRun {
		why := ""
		if r.WhyNotRun != "" {
			why = ": " + r.WhyNotRun
		}
		_, err := fmt.Fprintf(w, "%s: skipped: %s can express none of its %d steps (not run, not judged)%s%s\n\n", r.File, r.SUT, len(r.Skipped), why, r.asked())
		return err
	}
	first := firstSteps(r.Violations)
	if err := writeStepTable(w, r.Steps, first); err != nil {
		return err
	}
	writeLongJournals(w, r)
	unmet := r.Unmet()
	for _, s := range unmet {
		fmt.Fprintf(w, "%s:%d: step %d: %s: %s\n", r.File, s.Line, s.Step, s.Op, inert(s.Unmet))
	}
	for _, v := range r.Violations {
		fmt.Fprintf(w, "%s: %s\n", r.File, inert(v.String()))
	}
	writeViolatedAgain(w, r)
	if slices.ContainsFunc(r.Violations, func(v Violation) bool { return v.Hang }) {
		fmt.Fprintf(w, "%s: a timeout may be a loaded machine's, not the sandbox's: replay it again, or with a longer --timeout (a campaign judges a real sandbox's again on a fresh one before it counts)\n", r.File)
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "%s: %s skipped: %s cannot express %s (not run, not judged)%s\n", r.File, stepList(r.Skipped), r.SUT, them(len(r.Skipped)), r.asked())
	}
	if len(r.NotHeld) > 0 {
		fmt.Fprintf(w, "%s: expectation of %s not held: on what %s can be asked, SPEC §5 gives another result\n", r.File, stepList(r.NotHeld), r.SUT)
	}
	if n := countsTotal(r.Stricter); n > 0 {
		fmt.Fprintf(w, "%s: %s refused %s the model allows (stricter, SPEC §14: not judged; the table shows the model's answer for %s, marked): %s\n",
			r.File, r.SUT, plural(int(n), "op"), them(int(n)), countList(r.Stricter))
	}
	if r.NotRecurred() {
		fmt.Fprintf(w, "%s: written by a run as an example of ops stricter than the model (%s), but %s refused none of them here: in the run, the refusal came from what the sandbox kept of the scenarios before it, or it does not come every time\n",
			r.File, r.WrittenStricter, r.SUT)
	}
	verdict := "ok"
	if r.Failed() {
		verdict = fmt.Sprintf("FAIL: %d unmet expectations, %d findings", len(unmet), len(r.Violations))
	}
	skipped := ""
	if len(r.Skipped) > 0 {
		skipped = fmt.Sprintf(" (%d skipped)", len(r.Skipped))
	}
	_, err := fmt.Fprintf(w, "%s: %d steps%s, %s\n\n", r.File, len(r.Steps), skipped, verdict)
	return err
}

// writeStepTable writes the steps as a table aligned with spaces, each
// cell clipped to stay on one line of a terminal.
func writeStepTable(w io.Writer, steps []ReplayStep, first map[string]int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tOP\tRESULT\tHARD\tOPS\tWALL\tOUTPUT\tJOURNAL")
	for _, s := range steps {
		mark := ""
		if s.Stricter != "" {
			mark = "  refused by the sandbox (stricter: " + s.Stricter + "): the model's answer stands in, the journal what the sandbox did and what the harness did as the model's"
		}
		if s.Stricter == door.ReasonAnotherHost { // no refusal: it went elsewhere
			mark = "  another host fetched instead of the op's (stricter: " + s.Stricter + "): the model's answer stands in, the journal what the sandbox did and what the harness did as the model's"
		}
		if s.ModelJournal {
			mark = "  refused by the sandbox, which looked nothing up: the model's journal shown"
		}
		if s.Modelled {
			mark = "  the model's answer: after its stricter refusal above, the sandbox's verdict is not judged (its budgets parted from the model's); the journal is what it did, asked up to the op the model halts on, not after"
		}
		if s.Cleaned != "" {
			mark = "  the model's answer stands in for the server's (" + inert(s.Cleaned) + `): it reads ".." and "\" in a path by a policy of its own; what it did, the journal, is judged`
		}
		if s.Unknown != "" {
			mark = "  refused by the sandbox in words its profile does not tell (" + strconv.Quote(s.Unknown) + "): read as a denial"
		}
		if s.Landed {
			mark = "  allowed by the sandbox where the world's links lead it, under a root (the profile's lands): the model's answer stands in"
		}
		if s.Parted {
			mark = "  the model's answer: after a write above that the sandbox allowed where the world's links lead it, its tree is not the model's, so its verdict is not judged; what it did, the journal, is"
		}
		if s.Bare {
			mark += "  a connection that sent no request (a TLS hello, a browser's preconnect), journaled as the op's fetch (SPEC §14)"
		}
		if s.LineMoved {
			mark = "  the model's answer: the sandbox let it " + lineMovedWords + "; where it connected, the journal, is judged"
		}
		if s.Kept {
			mark += "  connected with no lookup of the name in this op, to an answer the sandbox kept from an earlier one (a DNS cache): the resolve journaled before it is the world's, moved on as the model's"
		}
		if s.Said != "" && s.Unknown == "" {
			mark += "  the sandbox said " + strconv.Quote(clip(s.Said, saidCell))
		}
		if s.Unmet != "" {
			mark += "  ✗ " + inert(s.Unmet)
		}
		if again := violatedAgain(s, first); len(again) > 0 {
			mark += "  ✗ violates " + strings.Join(again, ", ") + " again"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%d\t%s%s\n", s.Step, clip(s.Op, 48), clip(s.Result, 32), yesNo(s.Hard),
			s.OpsUsed, s.WallUsed, s.OutputUsed, clip(journalText(s.Journal), journalCell), mark)
	}
	return tw.Flush()
}

// firstSteps maps each invariant violated at a step to that step: the
// one its words are of.
func firstSteps(vs []Violation) map[string]int {
	first := map[string]int{}
	for _, v := range vs {
		if v.Step > 0 {
			first[v.Invariant] = v.Step
		}
	}
	return first
}

// violatedAgain is the invariants s violated that an earlier step
// violated first.
func violatedAgain(s ReplayStep, first map[string]int) []string {
	var again []string
	for _, inv := range s.Violated {
		if f, ok := first[inv]; ok && f < s.Step {
			again = append(again, inv)
		}
	}
	return again
}

// writeViolatedAgain writes, for each invariant violated again after its
// first violation, the steps that did, in the order of the violations'
// lines: the table marks them, and a reader of those lines would take the
// first for the only one.
func writeViolatedAgain(w io.Writer, r *Replay) {
	for _, v := range r.Violations {
		var again []int
		for _, s := range r.Steps {
			if v.Step > 0 && s.Step > v.Step && slices.Contains(s.Violated, v.Invariant) {
				again = append(again, s.Step)
			}
		}
		if len(again) > 0 {
			fmt.Fprintf(w, "%s: %s: violated again at %s, after step %d (marked in the table)\n", r.File, v.Invariant, stepList(again), v.Step)
		}
	}
}

// journalCell is the width of the table's journal cell.
const journalCell = 80

// saidCell is how many characters of a sandbox's words a step's mark shows.
const saidCell = 100

// writeLongJournals writes in full the journal the table clipped of each
// step that a violation or an unmet expectation names: the entry a finding
// is about is often past the cut.
func writeLongJournals(w io.Writer, r *Replay) {
	named := map[int]bool{}
	for _, v := range r.Violations {
		named[v.Step] = true
	}
	for _, s := range r.Steps {
		if j := journalText(s.Journal); (named[s.Step] || s.Unmet != "") && j != clip(j, journalCell) {
			if n := len(s.Journal); n > maxLongJournal {
				j = journalText(s.Journal[:maxLongJournal]) + fmt.Sprintf("; … and %d more entries (--format json holds them all)", n-maxLongJournal)
			}
			fmt.Fprintf(w, "%s:%d: step %d journal: %s\n", r.File, s.Line, s.Step, j)
		}
	}
}

// maxLongJournal bounds the entries writeLongJournals writes of a step: a
// sandbox that looked a name up thousands of times in one op would
// otherwise write them all on one line.
const maxLongJournal = 32

// them is "it" or "them", for n things.
func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// stepList writes 1-based step numbers as "step 3" or "steps 3, 7, 12".
func stepList(steps []int) string {
	words := make([]string, len(steps))
	for i, s := range steps {
		words[i] = strconv.Itoa(s)
	}
	if len(steps) == 1 {
		return "step " + words[0]
	}
	return "steps " + strings.Join(words, ", ")
}

func journalText(entries []string) string {
	if len(entries) == 0 {
		return "-"
	}
	return strings.Join(entries, "; ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// clip shortens s to at most n runes for a table cell, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// replayJSON is the JSON form of a Replay.
type replayJSON struct {
	File       string           `json:"file"`
	OK         bool             `json:"ok"`
	Steps      []stepJSON       `json:"steps"`
	Journal    []string         `json:"journal"`
	Violations []violationJSON  `json:"violations"`
	Unmet      []unmetJSON      `json:"unmet"`
	Skipped    []int            `json:"skipped,omitempty"`
	Asks       string           `json:"asks,omitempty"`        // with skipped: what the sandbox is asked
	WhyNotRun  string           `json:"why_not_run,omitempty"` // with every step skipped: why, where the door can tell
	NotHeld    []int            `json:"expectations_not_held,omitempty"`
	Stricter   map[string]int64 `json:"stricter,omitempty"`
	// StricterNotRecurred names the reason a run wrote the file for,
	// when this replay counted no op under it.
	StricterNotRecurred string `json:"stricter_not_recurred,omitempty"`
}

type stepJSON struct {
	Step       int      `json:"step"`
	Op         string   `json:"op"`
	Kind       string   `json:"kind"`
	Hard       bool     `json:"hard"`
	Data       string   `json:"data"`
	OpsUsed    int64    `json:"ops_used"`
	WallUsed   int64    `json:"wall_used"`
	OutputUsed int64    `json:"output_used"`
	Journal    []string `json:"journal"`
	Violated   []string `json:"violated,omitempty"`
	Stricter   string   `json:"stricter,omitempty"`
	// ModelJournal: the journal is the model's, the sandbox having made
	// none (ReplayStep.ModelJournal).
	ModelJournal bool `json:"model_journal,omitempty"`
	// Modelled: the model's answer stands in for the sandbox's verdict
	// (ReplayStep.Modelled).
	Modelled bool `json:"modelled,omitempty"`
	// Cleaned: the server's own answer to a path with ".." it cleans by
	// a policy of its own (ReplayStep.Cleaned).
	Cleaned string `json:"cleaned,omitempty"`
	// Unknown: the words of a refusal the profile does not tell
	// (ReplayStep.Unknown).
	Unknown string `json:"unknown_refusal,omitempty"`
	// Said: the sandbox's own words for an op it refused or found
	// nothing for (ReplayStep.Said).
	Said string `json:"said,omitempty"`
	// Landed: allowed where it lands (ReplayStep.Landed).
	Landed bool `json:"landed,omitempty"`
	// Parted: the model's answer, after a landed write changed the tree
	// (ReplayStep.Parted).
	Parted bool `json:"parted,omitempty"`
	// Bare: a connection that sent no request, journaled as the op's
	// fetch (ReplayStep.Bare).
	Bare bool `json:"bare,omitempty"`
	// Kept: a fetch from a DNS answer kept from an earlier op
	// (ReplayStep.Kept).
	Kept bool `json:"kept,omitempty"`
	// LineMoved: let through on lookups of its own off the model's dns
	// line, answered as the model (ReplayStep.LineMoved).
	LineMoved bool `json:"line_moved,omitempty"`
}

type violationJSON struct {
	Invariant string `json:"invariant"`
	Step      int    `json:"step"`
	Detail    string `json:"detail"`
	Hang      bool   `json:"hang,omitempty"`
}

type unmetJSON struct {
	Step   int    `json:"step"`
	Line   int    `json:"line"`
	Detail string `json:"detail"`
}

func writeReplayJSON(w io.Writer, r *Replay) error {
	doc := replayJSON{File: r.File, OK: !r.Failed(), Steps: []stepJSON{}, Journal: []string{},
		Violations: []violationJSON{}, Unmet: []unmetJSON{}, Skipped: r.Skipped, NotHeld: r.NotHeld, Stricter: r.Stricter}
	if len(r.Skipped) > 0 {
		doc.Asks = r.Asks
	}
	if r.NotRun {
		doc.WhyNotRun = r.WhyNotRun
	}
	if r.NotRecurred() {
		doc.StricterNotRecurred = r.WrittenStricter
	}
	for _, s := range r.Steps {
		doc.Steps = append(doc.Steps, stepJSON{Step: s.Step, Op: s.Op, Kind: s.Kind, Hard: s.Hard, Data: s.Data,
			OpsUsed: s.OpsUsed, WallUsed: s.WallUsed, OutputUsed: s.OutputUsed, Journal: append([]string{}, s.Journal...), Violated: s.Violated, Stricter: s.Stricter, ModelJournal: s.ModelJournal, Modelled: s.Modelled, Cleaned: s.Cleaned, Unknown: s.Unknown, Said: s.Said, Landed: s.Landed, Parted: s.Parted, Bare: s.Bare, Kept: s.Kept, LineMoved: s.LineMoved})
		doc.Journal = append(doc.Journal, s.Journal...)
		if s.Unmet != "" {
			doc.Unmet = append(doc.Unmet, unmetJSON{Step: s.Step, Line: s.Line, Detail: s.Unmet})
		}
	}
	for _, v := range r.Violations {
		doc.Violations = append(doc.Violations, violationJSON(v))
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
