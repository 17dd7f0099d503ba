package reports

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/door"
)

// FullChecks is the number of checks from which a report holds a cell or a
// point no check reached, for no structural reason, against the generators
// (Report.Full). The default campaign (sbxfuzz run without --checks or
// --duration) makes exactly this many, so that its report is full.
const FullChecks = 10000

// Summary is the JSON form of a campaign (SPEC §11): counts, throughput,
// findings, and the coverage tables. Everything but ElapsedSeconds,
// CheckedSeconds and OpsPerSecond is a function of the seed, the checks
// and the sandbox.
// The campaign fills it; the zero Summary is empty.
type Summary struct {
	Seed uint64 `json:"seed"`
	SUT  string `json:"sut"`
	// SUTFlags are the flags that choose the sandbox's configuration
	// again (--profile FILE), when the campaign was given any: the
	// reproduce line needs them.
	SUTFlags []string `json:"sut_flags,omitempty"`
	Checks   int      `json:"checks"`
	Drawn    int      `json:"drawn,omitempty"` // scenarios drawn, when an adapter skipped some
	// LeftOut counts the scenarios drawn that the sandbox could express
	// none of, by why, where its door says (a real-disk sandbox's).
	LeftOut        map[string]int `json:"left_out,omitempty"`
	Scenarios      uint64         `json:"scenarios"`
	Ops            uint64         `json:"ops"`
	Workers        int            `json:"workers"`
	ElapsedSeconds float64        `json:"elapsed_seconds"`
	CheckedSeconds float64        `json:"checked_seconds"` // the part of ElapsedSeconds the checks took; the rest minimized their findings
	OpsPerSecond   float64        `json:"ops_per_second"`  // over CheckedSeconds
	Interrupted    bool           `json:"interrupted"`
	RawFindings    int64          `json:"raw_findings"` // violations the oracle reported, before deduplication
	// ViolationCauses counts the distinct causes among them, whatever
	// their invariants: for a fetch, what a guard that lets it through
	// gets wrong (a range, a spelling, an embedding form, a rebinding);
	// for another op, its attack class. The findings kept are the first
	// of each cause, up to a number of each invariant.
	ViolationCauses int64 `json:"violation_causes,omitempty"`
	// Causes lists them, by the first check with one, each kept as a
	// finding or not: a sandbox that fails many ways shows every way,
	// whatever --per-invariant bounded the files to.
	Causes []Cause `json:"causes,omitempty"`
	// Warnings are the lines the run says loudly about its sandbox
	// (SandboxWarnings), filled when the summary is written as JSON.
	Warnings []string `json:"warnings,omitempty"`
	// DistinctScenarios counts the findings' distinct minimized
	// scenarios: findings of several invariants may share one.
	DistinctScenarios int       `json:"distinct_scenarios"`
	Findings          []Finding `json:"findings"`
	// FlakyFindings counts the findings marked flaky or stateful: they did
	// not fail again when judged again (alone, on a fresh sandbox), and do
	// not make the exit status 1, but for FlakyEscapes.
	FlakyFindings int `json:"flaky_findings,omitempty"`
	// FlakyEscapes counts the flaky findings of confinement or
	// no-internal-egress, counted in FlakyFindings too: the sandbox
	// reached outside its grant, or the inside, once (a cache kept from
	// an earlier scenario, a race), which is an escape all the same, and
	// they make the exit status 1.
	FlakyEscapes int `json:"flaky_escapes,omitempty"`
	// UnconfirmedFindings counts the op timeouts of a real sandbox written
	// when the campaign stopped before a fresh one judged them again:
	// they do not make the exit status 1 either.
	UnconfirmedFindings int `json:"unconfirmed_findings,omitempty"`
	// UnconfirmedHangs counts the hangs a fresh session of a real sandbox
	// answered in time when judged again: not findings.
	UnconfirmedHangs int `json:"unconfirmed_hangs,omitempty"`
	// GivenUpChecks counts the checks still running when a campaign
	// stopped, given up on and not judged (not in Checks): an op or a
	// start longer than what was left of its duration.
	GivenUpChecks int               `json:"given_up_checks,omitempty"`
	Invariants    []InvariantChecks `json:"invariants"`
	Classes       []ClassRow        `json:"classes"`
	// Dimensions is every point of the SPEC dimension table with its
	// hits, in the table's order, when the campaign counted them.
	Dimensions []DimensionPoint `json:"dimensions,omitempty"`
	// Stricter counts, by reason ("dangling-write", "other", ...), the
	// ops a real sandbox refused that the model allows and its profile
	// does not promise to allow (SPEC §14): stricter, not broken, so not
	// findings; the model's answer stood in for them.
	Stricter map[string]int64 `json:"stricter,omitempty"`
	// StricterExamples holds, by reason of Stricter, the least op counted
	// under it, as a scenario writes it: one to replay.
	StricterExamples map[string]string `json:"stricter_examples,omitempty"`
	// StricterSaid holds, by reason of Stricter, what the sandbox said
	// when it refused the example op, cut short; "" or absent when it
	// said nothing a door keeps (a proxy's refusal is a page of its own).
	StricterSaid map[string]string `json:"stricter_said,omitempty"`
	// StricterFiles holds, by reason of Stricter, the file written with
	// the scenario of the lowest check that had an op counted under it,
	// to replay (a campaign with an output directory writes them).
	StricterFiles map[string]string `json:"stricter_files,omitempty"`
	// Unasked says which ops the sandbox was never asked, and why (a
	// profile with no tool for them).
	Unasked string `json:"unasked,omitempty"`
	// SkippedStdoutLines counts the lines an MCP server wrote on stdout
	// that were not JSON-RPC (logs), which the client skipped.
	SkippedStdoutLines int64 `json:"skipped_stdout_lines,omitempty"`
	// WholeReads counts the reads a real sandbox allowed whose answer its
	// door could not find the content in, taken whole as the file's bytes
	// (WholeWarning); WholeExample is the least such answer, cut short.
	WholeReads   int64  `json:"whole_reads,omitempty"`
	WholeExample string `json:"whole_example,omitempty"`
	// NumberedReads counts the reads a real sandbox answered with the
	// file's lines each after a line number, as cat -n writes them, which
	// the profile does not cut (NumberedWarning).
	NumberedReads int64 `json:"numbered_reads,omitempty"`
	// KeptFetches counts the fetches of a name a real sandbox connected
	// for with no lookup of it in the op, from a DNS answer it kept from
	// an earlier op (KeptWarning).
	KeptFetches int64 `json:"kept_fetches,omitempty"`
	// LateRequests counts the requests a real sandbox sent the world
	// after the op that made them had answered (between ops, or in a
	// later op that never asked for them): not judged
	// (LateWarning). LateExample is the least, "host address path".
	LateRequests int64  `json:"late_requests,omitempty"`
	LateExample  string `json:"late_example,omitempty"`
	// LineMovedFetches counts the fetches a real sandbox let through on
	// lookups of its own that all answered a public address, where the
	// model's one lookup answers an internal one (LineMovedClause).
	LineMovedFetches int64 `json:"line_moved_fetches,omitempty"`
	// AllowedPassed counts the ops the model allows that the sandbox let
	// through (a proxy relayed the world's answer, a file server read or
	// wrote), on a door that counts them (the real ones); nil on the
	// others. Zero with Stricter ops is NothingPassed.
	AllowedPassed *int64 `json:"allowed_passed,omitempty"`
	// RefusedOps counts the ops the model refuses for the grant (a
	// traversal, a path or host outside the allow-list; not an internal
	// address, which a host the grant lists may answer with) on a door
	// that counts them (the real ones);
	// RefusedLetThrough those of them the sandbox let through. Most let
	// through is NoAllowListWarning.
	RefusedOps        int64 `json:"refused_ops,omitempty"`
	RefusedLetThrough int64 `json:"refused_let_through,omitempty"`
	// ByKind holds, by op kind (fs_read, fs_write, net_fetch, tool), what
	// Stricter, AllowedPassed, RefusedOps and RefusedLetThrough sum: a
	// sandbox may refuse every write (a tool that asks, told no) and let
	// every read through (no allow-list), which the sums read as one
	// policy.
	ByKind map[string]KindCounts `json:"by_kind,omitempty"`
	// NotApplicable names the invariants that cannot be observed on the
	// sandbox (a real one, SPEC §13), each with the reason: never counted
	// as held, so their rows count no checks (MarkNotApplicable).
	NotApplicable map[string]string `json:"not_applicable,omitempty"`
	// KindsNotApplicable names the result kinds the sandbox's door never
	// asks for (a proxy is asked no file op: no fs_read_denied), each
	// with the reason: not counted among those never reached.
	KindsNotApplicable map[string]string `json:"kinds_not_applicable,omitempty"`
	// StaleOps counts the ops whose effect came from an earlier
	// scenario's world (a proxy that fetched from a DNS answer it cached
	// across scenarios): from the first, the door gave every sandbox a
	// fresh start, and the findings before were judged again there.
	StaleOps int64 `json:"stale_ops,omitempty"`
	// CachedFetches counts the fetches a fetch server answered from a
	// cache of its own (a URL it fetched before, answered with no error
	// and no request): answered as the model does, not judged.
	CachedFetches int64 `json:"cached_fetches,omitempty"`
	// LandedOps counts the ops the model denies for their path that the
	// sandbox, whose profile says it judges where an op lands, allowed
	// where the world's links lead them under a root: answered as the
	// model does, not judged.
	LandedOps int64 `json:"landed_ops,omitempty"`
}

// DimensionPoint is one point of the SPEC dimension table — a group (a
// range, a budget, an argument) of a dimension and a name within it — and
// how often the campaign's scenarios hit it.
type DimensionPoint struct {
	Dim   string `json:"dimension"`
	Group string `json:"group"`
	Name  string `json:"point"`
	// Unreachable says why no scenario can hit the point (there is no
	// address below 0.0.0.0); "" for a point a campaign must hit.
	Unreachable string `json:"unreachable,omitempty"`
	Hits        uint64 `json:"hits"`
	// Drawn, for a sandbox whose adapter narrows scenarios (a real one),
	// is how often the scenarios as generated hit the point; nil for the
	// others, whose checked scenarios are the generated ones.
	Drawn *uint64 `json:"drawn,omitempty"`
}

// String returns "dimension group: point".
func (p DimensionPoint) String() string { return p.Dim + " " + p.Group + ": " + p.Name }

// Cause is one cause among a campaign's violations (Summary.Causes):
// what the violating op does.
type Cause struct {
	Cause      string `json:"cause"`
	Class      bool   `json:"class,omitempty"` // Cause is the op's attack class: its op is none a cause is named for
	Violations int64  `json:"violations"`      // across invariants
	FirstCheck int    `json:"first_check"`     // the lowest check with one
	Written    bool   `json:"written"`         // a finding of it was kept and written
	// Invariants names the invariants its violations are of, in the
	// catalogue's order.
	Invariants []string `json:"invariants"`
}

// Finding is one finding in a Summary.
type Finding struct {
	Invariant string `json:"invariant"`
	Check     int    `json:"check"`
	Step      int    `json:"step"`
	// Class is the attack class of the violating op as the scenario File
	// holds leaves it: the class it was drawn with, unless minimizing
	// took away the links that class names (then its path's shape). The
	// coverage tables and the causes seen count ops by the class they
	// were drawn with.
	Class string `json:"class"`
	// Cause, when set, is what the violating op of the scenario File
	// holds does, which the campaign kept one finding of each of: how a
	// file op's path leaves its roots, what a fetch's host names.
	Cause        string `json:"cause,omitempty"`
	Detail       string `json:"detail"` // the oracle's words on the scenario File holds (Check and Step say where the campaign found it)
	File         string `json:"file,omitempty"`
	OriginalOps  int    `json:"original_ops"`
	MinimizedOps int    `json:"minimized_ops"`
	// Unminimized is set on a finding written as it was found: the
	// campaign stopped before its minimization.
	Unminimized bool `json:"unminimized,omitempty"`
	// Flaky is set on a finding that did not fail again in any of the
	// judgements after the one that found it: Detail is the oracle's
	// words on that first run.
	Flaky bool `json:"flaky,omitempty"`
	// Stateful is set on a finding minimized on a sandbox that had judged
	// other scenarios first, whose file does not fail alone on a fresh
	// one: the sandbox keeps state from one scenario to the next.
	// Counted among the flaky ones.
	Stateful bool `json:"stateful,omitempty"`
	// Unreproduced, when not zero, is the number of ops of the minimized
	// candidate that did not fail once more when judged again: the
	// original scenario, which did, was written instead.
	Unreproduced int `json:"unreproduced,omitempty"`
	// Unconfirmed is set on an op's timeout on a real sandbox, written
	// when the campaign stopped before a fresh one judged it again.
	Unconfirmed bool `json:"unconfirmed,omitempty"`
}

// InvariantChecks is one invariant's coverage in a Summary: its checks
// and violations, and its checks per attack class.
type InvariantChecks struct {
	ID         string            `json:"id"`
	Checked    uint64            `json:"checked"`
	Violations uint64            `json:"violations"`
	ByClass    map[string]uint64 `json:"by_class"`
}

// notApplicable drops the row's checks: they would only have tested the
// harness's stand-in for what the sandbox does not show.
func (c *InvariantChecks) notApplicable() { c.Checked, c.ByClass = 0, map[string]uint64{} }

// MarkNotApplicable declares the invariants of na (ID → reason) not
// applicable to the sandbox (Summary.NotApplicable): their rows count no
// checks, which would only have tested the harness's stand-in for what
// cannot be observed.
func (s *Summary) MarkNotApplicable(na map[string]string) {
	if len(na) == 0 {
		return
	}
	s.NotApplicable = maps.Clone(na)
	for i := range s.Invariants {
		if _, ok := na[s.Invariants[i].ID]; ok {
			s.Invariants[i].notApplicable()
		}
	}
}

// MarkKindsNotApplicable declares the result kinds of na (kind → reason)
// never asked for by the sandbox's door (Summary.KindsNotApplicable).
func (s *Summary) MarkKindsNotApplicable(na map[string]string) {
	if len(na) > 0 {
		s.KindsNotApplicable = maps.Clone(na)
	}
}

// ClassRow is one attack class: its ops and the result kinds they got.
type ClassRow struct {
	ID    string            `json:"id"`
	Ops   uint64            `json:"ops"`
	Kinds map[string]uint64 `json:"kinds"`
}

// Kill is one row of the mutant kill table: whether a campaign from the
// seed killed the mutant, which invariant caught it, how many checks and
// seconds it took, and how small the minimized reproducer is.
type Kill struct {
	Mutant        string  `json:"mutant"`
	RedFlag       string  `json:"red_flag"`
	Killed        bool    `json:"killed"`
	Invariant     string  `json:"invariant"`
	Checks        int     `json:"checks"`
	Seconds       float64 `json:"seconds"`
	ReproducerOps int     `json:"reproducer_ops"`
	Reproducer    string  `json:"reproducer"` // the minimized scenario, canonical text
}

// Failed reports whether the campaign found a finding that counts for
// the exit status: one that is neither flaky (but for an escape) nor an
// unconfirmed timeout.
func (s *Summary) Failed() bool {
	return len(s.Findings) > s.FlakyFindings-s.FlakyEscapes+s.UnconfirmedFindings
}

// Expressible is the summary line's clause saying what fraction of the
// drawn scenarios the sandbox's adapter could express ("; N of M drawn
// scenarios expressible (P%)"), why most of the others were left out
// (LeftOut), and which ops it never asks (Unasked), or "" when it
// expressed them all and asks every op.
func (s *Summary) Expressible() string {
	unasked := ""
	if s.Unasked != "" {
		unasked = "; " + s.Unasked
	}
	if s.Drawn <= s.Checks {
		return unasked
	}
	why := ""
	if reasons := byCount(toInt64(s.LeftOut)); len(reasons) > 0 {
		why = fmt.Sprintf("; %d of those left out because %s", s.LeftOut[reasons[0]], reasons[0])
	}
	return fmt.Sprintf("; %d of %d drawn scenarios expressible (%.0f%%%s)%s", s.Checks, s.Drawn, 100*float64(s.Checks)/float64(s.Drawn), why, unasked)
}

// toInt64 is counts as byCount takes them.
func toInt64(counts map[string]int) map[string]int64 {
	out := make(map[string]int64, len(counts))
	for k, n := range counts {
		out[k] = int64(n)
	}
	return out
}

// stricterOps is how many ops were stricter than the model (Stricter),
// over every reason.
func (s *Summary) stricterOps() int64 { return countsTotal(s.Stricter) }

// stricterReasons lists the reasons of Stricter, the most ops first, ties
// by name.
func (s *Summary) stricterReasons() []string { return byCount(s.Stricter) }

// stricterCounts is Stricter in words: "dangling-write 9, other 3", in
// the order of stricterReasons.
func (s *Summary) stricterCounts() string { return countList(s.Stricter) }

// KindCounts are the counts of one op kind (Summary.ByKind).
type KindCounts struct {
	// Stricter counts the ops of the kind the sandbox refused that the
	// model allows, AllowedPassed those it let through.
	Stricter      int64 `json:"stricter,omitempty"`
	AllowedPassed int64 `json:"allowed_passed,omitempty"`
	// RefusedOps counts the ops of the kind the model refuses for the
	// grant, RefusedLetThrough those of them the sandbox let through.
	RefusedOps        int64 `json:"refused_ops,omitempty"`
	RefusedLetThrough int64 `json:"refused_let_through,omitempty"`
}

// kindSplit says ByKind in words, kind by kind in name order, with say
// giving a kind's words or false to leave it out: " (fs_read 0 of 20;
// fs_write 14 of 14)". It is "" unless two kinds or more have words:
// one kind's counts are the sums.
func (s *Summary) kindSplit(say func(KindCounts) (string, bool)) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.ByKind)) {
		if words, ok := say(s.ByKind[k]); ok {
			parts = append(parts, k+" "+words)
		}
	}
	if len(parts) < 2 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// allowedSplit is kindSplit of the ops the model allows: "fs_read 107
// let through, 0 refused".
func (s *Summary) allowedSplit() string {
	return s.kindSplit(func(n KindCounts) (string, bool) {
		return fmt.Sprintf("%d let through, %d refused", n.AllowedPassed, n.Stricter), n.AllowedPassed+n.Stricter > 0
	})
}

// refusedSplit is kindSplit of the ops the model refuses for the grant:
// "fs_read 60 of 60".
func (s *Summary) refusedSplit() string {
	return s.kindSplit(func(n KindCounts) (string, bool) {
		return fmt.Sprintf("%d of %d", n.RefusedLetThrough, n.RefusedOps), n.RefusedOps > 0
	})
}

// countsTotal is the sum of m's counts.
func countsTotal(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// byCount lists m's keys, the greatest count first, ties by name.
func byCount(m map[string]int64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b))
	})
	return out
}

// countList is m in words, in the order of byCount: "dangling-write 9,
// other 3".
func countList(m map[string]int64) string {
	var parts []string
	for _, k := range byCount(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// StricterExampleLines says, for each reason of Stricter that has an
// example, how many ops it counts and one of them, with the sandbox's
// words refusing it, the most counted first: "stricter than the model
// (other, 20 ops), one of them: fs_read /data/..hidden, refused in the
// words \"Access denied\"": a server that fails every call (a binary
// missing) is told by its words, not by the reasons, which name shapes
// of op.
func (s *Summary) StricterExampleLines() []string {
	// A run that writes files writes a scenario for every reason one of
	// whose ops came before any finding of its check.
	written := len(s.StricterFiles) > 0 || slices.ContainsFunc(s.Findings, func(f Finding) bool { return f.File != "" })
	var out []string
	for _, r := range s.stricterReasons() {
		if ex := s.StricterExamples[r]; ex != "" {
			line := fmt.Sprintf("stricter than the model (%s, %s), one of them: %s", r, plural(int(s.Stricter[r]), "op"), ex)
			if w := s.StricterSaid[r]; w != "" {
				line += ", refused in the words " + strconv.Quote(w)
			}
			if f := s.StricterFiles[r]; f != "" {
				line += "; its scenario, to replay: " + f
			} else if written {
				line += "; no scenario written: each such op came after a finding in its check"
			}
			out = append(out, line)
		}
	}
	return out
}

// StricterClause is the summary line's clause for the ops stricter than
// the model ("; 12 ops stricter than the model (dangling-write 9, other
// 3)"), or "" when there were none.
func (s *Summary) StricterClause() string {
	n := s.stricterOps()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %s stricter than the model (%s)", plural(int(n), "op"), s.stricterCounts())
}

// NothingPassed reports whether the sandbox let none of the ops the
// model allows through while it refused some (Stricter), on a door that
// counts them: only its refusals were judged, so a run without findings
// is no pass.
func (s *Summary) NothingPassed() bool {
	return s.AllowedPassed != nil && *s.AllowedPassed == 0 && s.stricterOps() >= minRefusedToWarn
}

// minRefusedToWarn is how many refusals of ops the model allows, and none
// let through, make NothingPassed: fewer (a run stopped at its first
// finding) say little of the profile.
const minRefusedToWarn = 20

// SandboxWarnings are the lines a run must say loudly about its sandbox:
// those of GivenUpWarning, NothingPassedWarning, MostlyStricterWarning,
// KindNothingPassedWarning, NoAllowListWarning, StaleWarning,
// KeptWarning, LateWarning, WholeWarning and NumberedWarning that hold.
func (s *Summary) SandboxWarnings() []string {
	var out []string
	for _, w := range []string{s.GivenUpWarning(), s.NothingPassedWarning(), s.MostlyStricterWarning(), s.KindNothingPassedWarning(), s.NoAllowListWarning(), s.StaleWarning(), s.KeptWarning(), s.LateWarning(), s.WholeWarning(), s.NumberedWarning()} {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// GivenUpWarning is the one line that says some checks were given up
// when the campaign stopped, or "" when none were: a sandbox whose ops (or
// start) take longer than what is left of a campaign's duration is never
// judged, and a run that judged nothing must not read as a clean one.
func (s *Summary) GivenUpWarning() string {
	if s.GivenUpChecks == 0 || s.Interrupted { // an interrupt gives up what runs: no advice to give
		return ""
	}
	return fmt.Sprintf("%d checks were still running when the campaign stopped, given up on and not judged: an op or a start that takes longer than what was left of --duration (give --timeout and --start-timeout less than --duration, or a longer --duration)",
		s.GivenUpChecks)
}

// WholeWarning is the one line that says some reads were answered with
// text the door could not find the content in, or "" when none were: a
// profile whose result does not fit the server reads every answer as a
// file's bytes, and one whose refusals miss a refusal reads the refusal
// as a file, the verdict-matches-model findings that follow being the
// profile's fault, not the server's.
func (s *Summary) WholeWarning() string {
	if s.WholeReads == 0 {
		return ""
	}
	reads := countOf(s.WholeReads, "read was", "reads were")
	return fmt.Sprintf("%s answered with text the profile's read result finds no content in, taken whole as the file's bytes (the least: %q): a refusal the profile's refusals do not match reads as a file (docs/real-sandboxes.md#a-server-with-other-tools-profiles)",
		reads, s.WholeExample)
}

// NumberedWarning is the one line that says some reads were answered
// with numbered lines the profile does not cut, or "" when none were:
// every such read differs from the file, a verdict-matches-model finding
// of the profile's making.
func (s *Summary) NumberedWarning() string {
	if s.NumberedReads == 0 {
		return ""
	}
	return fmt.Sprintf("%s answered with the file's lines each after a line number, as cat -n writes them, which the profile does not cut: each differs from the file, a verdict-matches-model finding of the profile's making; give its read result a \"line_prefix\" (\" *\\\\d+\\\\t\" for cat -n; docs/real-sandboxes.md#a-server-with-other-tools-profiles)",
		countOf(s.NumberedReads, "read was", "reads were"))
}

// LateWarning is the one line that says a sandbox sent the world requests
// between ops, or "" when it sent none: the world serves nothing then and
// journals nothing, so what those requests reached was never judged.
func (s *Summary) LateWarning() string {
	if s.LateRequests == 0 {
		return ""
	}
	return fmt.Sprintf("%s sent the world %s after the op that made them had answered (the least: %s): between ops, or in a later op to a host and address an earlier op fetched that the later op never asked for (no lookup of it, no redirect to it); the world served them nothing and journaled them nowhere: not judged; a sandbox that goes on fetching after it answers (a browser loading a page's parts, a retry) is judged on what it asks for the op under way",
		s.SUT, plural(int(s.LateRequests), "request"), s.LateExample)
}

// KeptWarning is the one line that says a sandbox fetched names from DNS
// answers it kept from an earlier op, or "" when it did not.
func (s *Summary) KeptWarning() string {
	if s.KeptFetches == 0 {
		return ""
	}
	return fmt.Sprintf("%s fetched a name %s with no lookup of it in the op, from an answer it kept from an earlier op (a DNS cache; Traffic Server's HostDB keeps even an answer of TTL 0): the world resolves it for the fetch as the model does, so on a dns line whose answers change a finding that reads \"the address checked is not the address used\" is of that cache, not of a check; replay marks such steps; turn its DNS cache off where it can be",
		s.SUT, plural(int(s.KeptFetches), "time"))
}

// MostlyStricterWarning is the one line that says the sandbox refused
// more of the ops the model allows than it let through (but let some
// through: else NothingPassedWarning), or "" when it did not: most of the
// campaign judged its refusals only, which a run with few findings must
// not hide. A fetch guard that refuses the documentation ranges refuses
// every name of the world (SPEC §6 resolves them into 203.0.113.0/24),
// so the line says so when most of its refusals are of that kind (or of
// names it refused without a lookup).
func (s *Summary) MostlyStricterWarning() string {
	n := s.stricterOps()
	if s.AllowedPassed == nil || *s.AllowedPassed == 0 || n < minRefusedToWarn || n <= *s.AllowedPassed {
		return ""
	}
	hint := "the stricter lines say which"
	top := s.stricterReasons()[0]
	switch ex := s.StricterExamples[top]; {
	case strings.HasPrefix(ex, "net_fetch ") && (top == door.ReasonDocumentation || top == door.ReasonRefusedAllowed):
		hint += "; the world's names resolve into 203.0.113.0/24 (SPEC §6), a documentation range that a guard refusing every special-purpose range refuses, so such a guard meets an internal address only where a name's dns line gives one, and most are names RFC 2606 reserves (example.com, .example), which a guard refusing reserved names refuses without a lookup (refused-allowed)"
	case strings.HasPrefix(ex, "fs_"):
		hint += "; check that the profile's tools and arguments fit the server, and if the server holds its directories, not their paths (a bind mount, a Landlock rule, a handle opened at its start), that its profile says \"holds_dirs\": true: else it finds nothing in a directory made anew between scenarios; and if it keeps files of its own in its directories (a state directory made when it starts), that its profile names them in \"own_names\": else the restore between scenarios removes them"
	}
	return fmt.Sprintf("%s refused %s the model allows and let %d through%s, so most of the ops it was asked that the model allows were judged by its refusals alone (%s)",
		s.SUT, plural(int(n), "op"), *s.AllowedPassed, s.allowedSplit(), hint)
}

// NothingPassedWarning is the one line that says NothingPassed, or ""
// when it does not hold.
func (s *Summary) NothingPassedWarning() string {
	if !s.NothingPassed() {
		return ""
	}
	return fmt.Sprintf("%s let none of the %s the model allows through (all refused: %s), so only its refusals were judged: check that its profile fits it (a proxy's mode and the hosts its ACL allows; a fetch server's tool, its URL argument and the hosts it is given; a file server's tools, their arguments and the roots it is given)",
		s.SUT, plural(int(s.stricterOps()), "op"), s.stricterCounts())
}

// KindNothingPassedWarning is the one line that says the sandbox let
// none of the ops of some kind that the model allows through, refusing
// at least minRefusedToWarn of them, while it let ops of other kinds
// through; "" when no kind did, or when NothingPassedWarning or
// MostlyStricterWarning say so of the whole run. A file server whose
// writes ask first, told no, refuses every write and lets reads through,
// and its writes were judged by their refusals alone.
func (s *Summary) KindNothingPassedWarning() string {
	if s.AllowedPassed == nil || *s.AllowedPassed == 0 || s.MostlyStricterWarning() != "" {
		return ""
	}
	var kinds, counts []string
	for _, k := range slices.Sorted(maps.Keys(s.ByKind)) {
		if n := s.ByKind[k]; n.AllowedPassed == 0 && n.Stricter >= minRefusedToWarn {
			kinds = append(kinds, k)
			counts = append(counts, fmt.Sprintf("%s %d", k, n.Stricter))
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	return fmt.Sprintf("%s let none of the %s ops the model allows through (refused: %s) while it let %d ops of other kinds through, so they were judged by their refusals alone: a tool that asks before it acts, told no, refuses them all; if the sandbox does not ask, check that its profile's tool for them and their arguments fit it",
		s.SUT, strings.Join(kinds, " and "), strings.Join(counts, ", "), *s.AllowedPassed)
}

// NoAllowListWarning is the one line that says the sandbox let through
// more than half of the ops the model refuses for the grant or SPEC §6
// (at least minRefusedToWarn of them), or "" when it did not: the
// findings that follow are many and alike, and the first question is
// whether the sandbox keeps an allow-list at all, or was given the grant.
func (s *Summary) NoAllowListWarning() string {
	if s.RefusedLetThrough < minRefusedToWarn || 2*s.RefusedLetThrough <= s.RefusedOps {
		return ""
	}
	wrapped := ", or a sandbox around it confined nothing (firejail turns itself off in a PID namespace, where the harness starts servers, unless told it runs in a container)"
	if strings.HasPrefix(s.SUT, "proxy:") {
		wrapped = ""
	}
	return fmt.Sprintf("%s let through %d of the %s the model refuses for the grant%s (a path or host the grant does not list, a traversal): it keeps no allow-list of its own, or its profile does not give it the grant (a file server's roots, a fetch server's hosts)%s, and its findings will say so many times over",
		s.SUT, s.RefusedLetThrough, plural(int(s.RefusedOps), "op"), s.refusedSplit(), wrapped)
}

// StaleWarning is the one line that says StaleOps, or "" when there
// were none.
func (s *Summary) StaleWarning() string {
	if s.StaleOps == 0 {
		return ""
	}
	return fmt.Sprintf("%s fetched from a DNS answer of an earlier world (another scenario, or the run a replay repeats) %s: it caches DNS, so from then on every sandbox got a fresh one of its own (a finding it caused before is flaky if a fresh one passes it); give its profile \"fresh\": true",
		s.SUT, plural(int(s.StaleOps), "time"))
}

// LandedClause is the summary line's clause for the ops allowed where
// they land (LandedOps), or "" when there were none.
func (s *Summary) LandedClause() string {
	if s.LandedOps == 0 {
		return ""
	}
	return "; " + plural(int(s.LandedOps), "op") + " the model denies for their path allowed where the world's links lead them, under a root (the profile's lands: not judged)"
}

// CachedClause is the summary line's clause for the fetches a server
// answered from its cache ("; 3 fetches answered from the server's cache,
// as the model: not judged"), or "" when there were none.
func (s *Summary) CachedClause() string {
	if s.CachedFetches == 0 {
		return ""
	}
	return "; " + countOf(s.CachedFetches, "fetch", "fetches") + " answered from the server's cache (a URL it fetched before, no request made), as the model: not judged; from the first on, every sandbox got a server of its own, a start each (a profile with \"fresh\": true starts so); an answer that is an error in words is none: the profile's \"refusals\" tell them"
}

// LineMovedClause is the summary line's clause for the fetches let
// through on lookups off the model's dns line, or "" when there were
// none.
func (s *Summary) LineMovedClause() string {
	if s.LineMovedFetches == 0 {
		return ""
	}
	return "; " + countOf(s.LineMovedFetches, "fetch", "fetches") + " let " + lineMovedWords + ": answered as the model, where it connected judged"
}

// lineMovedWords say what a fetch counted in Tally.LineMoved was, in the
// summary and in a replay's marks.
const lineMovedWords = "through on lookups of its own that all answered a public address, where the model's one lookup answers an internal one (its lookups moved the name's dns line elsewhere than the model's: it looks a name up more than once a fetch, or looked up one the model refused)"

// SkippedLinesClause is the summary line's clause for a server's skipped
// stdout lines ("; 5 non-JSON stdout lines skipped"), or "" when there
// were none.
func (s *Summary) SkippedLinesClause() string {
	if s.SkippedStdoutLines == 0 {
		return ""
	}
	return fmt.Sprintf("; %s skipped", plural(int(s.SkippedStdoutLines), "non-JSON stdout line"))
}

// countOf is n and the words for one or for many: "1 fetch", "3 fetches".
func countOf(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Rate is a rate of ops a second as sbxfuzz shows it: whole when it is large,
// to two significant digits when it is small, so that a sandbox slower
// than an op a second (a browser started for every grant) does not read
// as none.
func Rate(perSecond float64) string {
	if perSecond >= 10 {
		return strconv.FormatFloat(perSecond, 'f', 0, 64)
	}
	return strconv.FormatFloat(perSecond, 'g', 2, 64)
}
