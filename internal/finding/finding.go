// Package finding is the one path from a raw finding — a scenario and the
// invariant the oracle found violated on it — to a reproducer on disk:
// minimize (bounded), explain, write the model's results as expectations,
// annotate with a header that names the sandbox and the command that
// replays it, and write atomically. Campaigns (sbxfuzz run), sbxfuzz import,
// sbxfuzz minimize and the public sbxtest API all go through it, so a
// finding reads the same wherever it was found.
package finding

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/inert"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/minimize"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// HangTimeout is the op timeout for the candidates of a hang finding (or
// the pipeline's own, when shorter): once an op is known to hang, waiting
// the full timeout for every candidate that hangs again would make
// minimizing it take hours.
const HangTimeout = 200 * time.Millisecond

// HangTime bounds the minimization of a hang finding.
const HangTime = 45 * time.Second

// Pipeline turns raw findings on one sandbox into written reproducers. The
// zero values of its optional fields are sensible defaults. A Pipeline is
// not safe for concurrent use (its Factory may not be).
type Pipeline struct {
	Factory core.Factory // the sandbox under test
	SUT     string       // its --sut name, for the header and the command
	// Timeout bounds each op of a candidate (0: the oracle's default); a
	// hang finding's candidates get HangTimeout instead.
	Timeout time.Duration
	// StartTimeout bounds the building of each candidate's sandbox (0:
	// the oracle's default, at least 10 s), a hang finding's too: a
	// server that is slow to start is not the failure being minimized.
	StartTimeout time.Duration
	Limits       minimize.Limits // bounds of each minimization
	// Flags follow "--sut SUT" in the command that replays a finding: what
	// else chose the sandbox (its sut.Target.Flags, --profile NAME).
	Flags []string
	// Program is the words that run the command line the reproduce lines
	// name, as a user types them ("mysbx", "go run ./cmd/mysbx"): a
	// program built with sbxcli, where the stock sbxfuzz would not know
	// the sandbox. "" means "sbxfuzz".
	Program string
	// Command returns the command that replays the file at path; nil means
	// "PROGRAM replay --sut SUT FLAGS path".
	Command func(path string) string
	// Adapt, when set, is the sandbox's sut.Target.Adapt: a candidate it
	// would narrow (a scenario the sandbox cannot express) is refused, so
	// that minimizing never walks into what the sandbox cannot be asked.
	Adapt func(*scenario.Scenario) *scenario.Scenario
	// Start, when set, starts a fresh session of the sandbox (its
	// sut.Target.Start). Factory's session has judged other scenarios
	// before: a sandbox that keeps state from one to the next (a process,
	// a server) may pass there what fails on a fresh start, as 'sbxfuzz
	// replay' makes one. A finding that does not fail again on Factory is
	// then judged, and minimized, on a fresh session for each candidate.
	Start func() (core.Factory, func() error, error)
	// Cause, when set, names what a finding at an op is about (a
	// campaign's cause: the path's way out of its roots, the host's
	// range), "" for nothing more than its invariant. A candidate then
	// fails alike only at an op of the original's cause, so that what
	// is minimized is the defect the finding was kept for, not another
	// the same invariant meets on the way (a link's escape shrunk to a
	// plain write outside every root).
	Cause func(sc *scenario.Scenario, f oracle.Finding) string
	// ShrinkPastCause lets a candidate fail alike at an op of any cause:
	// the finding is minimized as far as its invariant lets it (a
	// campaign's one finding under StopAtFirst). Cause still names the
	// written file's.
	ShrinkPastCause bool
	// Class, when set, is the attack class a minimized finding is
	// labelled with, given the minimized scenario, its failing step and
	// the class that step's op was drawn with (campaign.MinimizedClass):
	// nil keeps the drawn class.
	Class func(sc *scenario.Scenario, step int, drawn attack.Class) attack.Class

	aloneMu sync.Mutex
	alone   map[string]bool // failsAlone's answers, by minimized text
}

// Finding is one violation, minimized.
type Finding struct {
	Invariant oracle.ID
	Step      int          // the step of the original scenario (0: whole run)
	Class     attack.Class // the class of the op at Step, as the Pipeline's Class labels it
	Detail    string       // the oracle's words, on the original scenario
	Origin    string       // where it came from: "seed 1, check 42", "imported from x"
	Original  *scenario.Scenario
	Minimized *scenario.Scenario // with the model's results as expectations
	MinDetail string             // the oracle's words on the minimized scenario
	MinStep   int                // the step at which the minimized scenario fails
	Stats     minimize.Stats
	// Flaky is set when the scenario did not fail again in any of the
	// Replays judgements after the one that found it: it is not
	// minimized, and MinDetail and MinStep are the oracle's words on the
	// run that found it.
	Flaky bool
	// Stateful is set when the minimized scenario failed on the session
	// that had judged the scenarios before it, and not on a fresh one: the
	// sandbox keeps something from one scenario to the next (a cache of
	// paths it checked, say), so the file alone does not fail. Counted as
	// flaky.
	Stateful bool
	// Replays is how many times the scenario was judged again before it
	// was minimized, or called flaky.
	Replays int
	// Cause is what the violating op of the written scenario is about,
	// the Pipeline's Cause on it: "" when the Pipeline names none.
	Cause string
	// Unreproduced is the number of ops of the minimized candidate that
	// did not fail once more when explained (a hang the machine's load
	// made, say), where the original did: the original is kept, not a
	// file that passes on replay. Zero when none was.
	Unreproduced int
}

// MaxReplays is how many times at most Process judges a finding's
// scenario again before minimizing it: twice on the session (a failure
// there that holds once the session has judged it), then once on a fresh
// session when the Pipeline can start one (else on the session). A finding
// that fails in none of them is flaky.
const MaxReplays = 3

// Process minimizes sc for the invariant f names, explains the result and
// writes the model's results into it as expectations. sc is not modified.
// A hang finding is minimized with HangTimeout per op and within HangTime.
//
// sc is judged again first (see MaxReplays), and minimized on the session
// it fails on: a finding that fails on every replay is minimized whatever
// the sandbox kept from the scenarios before it, and only one that fails
// on none is left as it is, marked Flaky. When lim.Stop is closed before
// that, sc is left as it is, and not called flaky.
func (p *Pipeline) Process(sc *scenario.Scenario, f oracle.Finding, origin string) *Finding {
	return p.ProcessAlong(sc, f, nil, origin)
}

// ProcessAlong is Process for a finding whose op failed other invariants
// too (along): a candidate fails alike only when it fails them as well,
// at the same op. A wrong verdict at an op that also reached the inside
// is then minimized to what that egress finding shrinks to, and both
// files show the op doing what it did.
func (p *Pipeline) ProcessAlong(sc *scenario.Scenario, f oracle.Finding, along []oracle.ID, origin string) *Finding {
	timeout, start, lim := p.bounds(f)
	clean := minimize.Clean(sc)
	out := &Finding{Invariant: f.Invariant, Step: f.Step, Class: sc.ClassAt(f.Step - 1), Detail: f.Detail,
		Origin: origin, Original: sc, Minimized: clean, MinDetail: f.Detail, MinStep: f.Step}
	judge, fresh, replays := p.confirm(clean, f, timeout, start, lim.Stop)
	out.Replays = replays
	switch {
	case judge != nil:
		like := p.like(clean, f)
		pred := p.adapted(judgedLike(judge, like, along, timeout, start))
		out.Minimized, out.Stats = minimize.Minimize(clean, f.Step, knownToFail(clean, pred), lim)
		var again bool
		out.MinDetail, out.MinStep, again = p.explain(out.Minimized, f, like, judge)
		if !again && len(out.Minimized.Steps) < len(clean.Steps) && !stopped(lim.Stop) {
			// The minimizer took a candidate that failed once, and not
			// again: keep the scenario that was confirmed to fail.
			out.Unreproduced = len(out.Minimized.Steps)
			out.Minimized, out.MinDetail, out.MinStep = clean, f.Detail, f.Step
		}
		if !fresh && p.Start != nil {
			out.Stateful = !p.failsAlone(out.Minimized, f, timeout, start, lim.Stop)
		}
	case stopped(lim.Stop):
		out.Stats.Cut = true
	default:
		out.Flaky = true
	}
	Expect(out.Minimized)
	if p.Class != nil {
		out.Class = p.Class(out.Minimized, out.MinStep, out.Class)
	}
	if p.Cause != nil {
		out.Cause = p.Cause(out.Minimized, oracle.Finding{Invariant: f.Invariant, Step: out.MinStep, Detail: out.MinDetail})
	}
	return out
}

// failsAlone reports whether sc, minimized for f on a session that judged
// other scenarios first, fails as f did on a fresh session too, as a
// replay of its file runs it: once for each text (the raw findings of one
// cause minimize to one), and true when stop closed first (not known).
func (p *Pipeline) failsAlone(sc *scenario.Scenario, f oracle.Finding, timeout, start time.Duration, stop <-chan struct{}) bool {
	key := f.Invariant.String() + "\n" + string(sc.Format())
	p.aloneMu.Lock()
	defer p.aloneMu.Unlock()
	if ok, known := p.alone[key]; known {
		return ok
	}
	ok, _ := failsOn(minimize.Fresh(p.Start, stop), sc, f, timeout, start, stop)
	ok = ok || stopped(stop)
	if !stopped(stop) {
		if p.alone == nil {
			p.alone = map[string]bool{}
		}
		p.alone[key] = ok
	}
	return ok
}

// bounds returns the op timeout, the factory's timeout and the limits of
// minimizing f: a hang finding is minimized with HangTimeout per op and
// within HangTime.
func (p *Pipeline) bounds(f oracle.Finding) (timeout, start time.Duration, lim minimize.Limits) {
	// The start timeout stays as given (0: the oracle's default, at
	// least 10 s): a candidate slow to start must not read as the hang
	// being minimized, a start that timed out among them.
	timeout, lim, start = p.Timeout, p.Limits, p.StartTimeout
	if f.Hang {
		timeout = HangTimeout
		if p.Timeout > 0 && p.Timeout < HangTimeout {
			timeout = p.Timeout
		}
		if lim.Time <= 0 || lim.Time > HangTime {
			lim.Time = HangTime
		}
	}
	return timeout, start, lim
}

// slowTimeouts is how many op timeouts a judgement that timed out gets
// when it is made again (confirm).
const slowTimeouts = 4

// confirm judges sc again until it fails as f did, and returns the Judge
// it failed on, whether that Judge starts a fresh session for each
// scenario, and how many judgements that took: the pipeline's session
// when sc fails there twice running (so the failure does not depend on the
// session being fresh the first time), else a fresh session for each
// case when sc fails on one (or the session again, when the Pipeline
// cannot start one), else the session when sc failed there once. It
// returns nil when sc failed in none, or when stop closed first. Each
// judgement is failsOn's, made again slower when it timed out.
func (p *Pipeline) confirm(sc *scenario.Scenario, f oracle.Finding, timeout, start time.Duration, stop <-chan struct{}) (j minimize.Judge, fresh bool, replays int) {
	fails := func(j minimize.Judge) bool {
		like, n := failsOn(j, sc, f, timeout, start, stop)
		replays += n
		return like
	}
	warm, third := minimize.On(p.Factory), minimize.On(p.Factory)
	if p.Start != nil {
		third = minimize.Fresh(p.Start, stop)
	}
	first, second := fails(warm), fails(warm)
	switch {
	case first && second:
		return warm, false, replays
	case fails(third):
		return third, p.Start != nil, replays
	case first || second:
		return warm, false, replays
	}
	return nil, false, replays
}

// failsOn judges sc on j and reports whether it fails as f did, and how
// many judgements that took. A judgement that timed out on an op, where
// f is no hang, says nothing of f (a slow machine, a server slow on its
// first call): it is made once more with slowTimeouts times the timeout
// before it counts as passing.
func failsOn(j minimize.Judge, sc *scenario.Scenario, f oracle.Finding, timeout, start time.Duration, stop <-chan struct{}) (like bool, judgements int) {
	judge := func(t time.Duration) (like, hung bool) {
		judgements++
		fs := j(sc, oracle.Options{Timeout: t, StartTimeout: start})
		return slices.ContainsFunc(fs, func(fd oracle.Finding) bool { return minimize.Like(f, fd) }),
			slices.ContainsFunc(fs, func(fd oracle.Finding) bool { return fd.Hang })
	}
	if stopped(stop) {
		return false, 0
	}
	like, hung := judge(timeout)
	if like || f.Hang || !hung || stopped(stop) {
		return like, judgements
	}
	like, _ = judge(slowTimeouts * cmp.Or(timeout, oracle.DefaultTimeout))
	return like, judgements
}

// adapted is pred, refusing a candidate the sandbox's adapter would narrow.
func (p *Pipeline) adapted(pred minimize.Predicate) minimize.Predicate {
	if p.Adapt == nil {
		return pred
	}
	return func(c *scenario.Scenario) bool {
		a := p.Adapt(c)
		return a != nil && a.Equal(c) && pred(c) // what the adapter leaves as it is
	}
}

// like returns whether a finding fd on a candidate is the failure f on
// sc is (minimize.Like), at an op of f's Cause when the Pipeline names
// one.
func (p *Pipeline) like(sc *scenario.Scenario, f oracle.Finding) func(*scenario.Scenario, oracle.Finding) bool {
	want := ""
	if p.Cause != nil && !p.ShrinkPastCause {
		want = p.Cause(sc, f)
	}
	return func(c *scenario.Scenario, fd oracle.Finding) bool {
		return minimize.Like(f, fd) && (want == "" || p.Cause(c, fd) == want)
	}
}

// judgedLike is minimize.JudgedLike for a finding that like tells, at an
// op that fails every invariant of along too.
func judgedLike(j minimize.Judge, like func(*scenario.Scenario, oracle.Finding) bool, along []oracle.ID, timeout, start time.Duration) minimize.Predicate {
	return func(sc *scenario.Scenario) bool {
		fs := j(sc, oracle.Options{Timeout: timeout, StartTimeout: start})
		return slices.ContainsFunc(fs, func(fd oracle.Finding) bool {
			return like(sc, fd) && !slices.ContainsFunc(along, func(id oracle.ID) bool {
				return !slices.ContainsFunc(fs, func(o oracle.Finding) bool { return o.Invariant == id && o.Step == fd.Step })
			})
		})
	}
}

// knownToFail is pred, except that sc, which confirm saw fail, is not
// judged once more when Minimize starts from it.
func knownToFail(sc *scenario.Scenario, pred minimize.Predicate) minimize.Predicate {
	known := sc.Format()
	return func(c *scenario.Scenario) bool {
		if known != nil && bytes.Equal(c.Format(), known) {
			known = nil
			return true
		}
		return pred(c)
	}
}

// stopped reports whether stop is closed.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// explain judges the minimized scenario again, on the Judge it was
// minimized on, for the oracle's words and the step. A scenario that does
// not fail there once more is judged on a fresh session, when the
// Pipeline can start one; failing that, the words are those on the
// original scenario, said so, and again is false.
func (p *Pipeline) explain(sc *scenario.Scenario, f oracle.Finding, like func(*scenario.Scenario, oracle.Finding) bool, on minimize.Judge) (detail string, step int, again bool) {
	if _, err := judge.NewCase(sc); err != nil {
		return err.Error(), 0, true // no scenario to judge: nothing better is known
	}
	judges := []minimize.Judge{on}
	if p.Start != nil {
		judges = append(judges, minimize.Fresh(p.Start, p.Limits.Stop))
	}
	for _, j := range judges {
		fs := j(sc, oracle.Options{Timeout: p.Timeout, StartTimeout: p.StartTimeout})
		for _, fd := range fs {
			if like(sc, fd) {
				return fd.Detail, fd.Step, true
			}
		}
		for _, fd := range fs {
			if fd.Invariant == f.Invariant {
				return fd.Detail, fd.Step, true
			}
		}
	}
	return fmt.Sprintf("%s (the oracle's words at step %d of the original scenario: the minimized one did not fail once more when explained)", f.Detail, f.Step), 0, false
}

// Expect writes into sc, as expectations, the results SPEC §5 gives for
// its ops by the oracle's independent model. A scenario whose grant is
// invalid is left as it is.
func Expect(sc *scenario.Scenario) {
	c, err := judge.NewCase(sc)
	if err != nil {
		return
	}
	for i, r := range judge.Expected(c) {
		sc.Steps[i].Expect = &scenario.Expect{Kind: r.Kind, Data: r.Data, HasData: r.Data != ""}
	}
}

// FileName is the name a finding is written under: its invariant and a
// hash of its minimized text without comments, so the same finding always
// lands in the same file and two different ones never collide by accident
// (64 bits of SHA-256: a shorter hash met two scenarios of one invariant
// under one name among a few hundred thousand).
func (f *Finding) FileName() string {
	sum := sha256.Sum256(f.minimizedText())
	return fmt.Sprintf("%s-%x.sbx", f.Invariant, sum[:8])
}

// Key tells findings apart in full: its invariant and its minimized text
// without comments, which FileName hashes. Findings with equal keys are
// one finding.
func (f *Finding) Key() string {
	return f.Invariant.String() + "\n" + string(f.minimizedText())
}

// minimizedText is the text of f's minimized scenario without comments.
func (f *Finding) minimizedText() []byte {
	c := *f.Minimized
	c.Comment = nil
	return c.Format()
}

// Explanation is the oracle's words on the minimized scenario, on one line,
// led by its step; for a flaky finding, the words on the run that found
// it, led by "flaky"; for a stateful one, led by what it needs.
func (f *Finding) Explanation() string {
	s := strings.ReplaceAll(f.MinDetail, "\n", " ")
	if f.MinStep > 0 {
		s = fmt.Sprintf("step %d: %s", f.MinStep, s)
	}
	switch {
	case f.Flaky:
		s = fmt.Sprintf("flaky: it did not fail again in %d judgements; when found, %s", f.Replays, s)
	case f.Stateful:
		s = "flaky: it fails only on a sandbox that judged other scenarios first (it keeps state from one to the next), not alone on a fresh one; there, " + s
	}
	return s
}

// command returns the command that replays the file at path.
func (p *Pipeline) command(path string) string {
	if p.Command != nil {
		return p.Command(path)
	}
	return fmt.Sprintf("%s replay %s %s", p.Invocation(), SUTArgs(p.SUT, p.Flags), QuoteArg(filepath.ToSlash(path)))
}

// Invocation is the words that start every command the pipeline prints:
// Program, or "sbxfuzz".
func (p *Pipeline) Invocation() string {
	if p.Program == "" {
		return "sbxfuzz"
	}
	return p.Program
}

// SUTArgs are the words that choose the sandbox on a command line, quoted
// for a POSIX shell: "--sut NAME" and then flags.
func SUTArgs(sut string, flags []string) string {
	words := []string{"--sut", QuoteArg(sut)}
	for _, f := range flags {
		words = append(words, QuoteArg(f))
	}
	return strings.Join(words, " ")
}

// Annotate writes the finding's header comment into its minimized
// scenario: the invariant, the explanation, where it came from, how much it
// shrank, and the command that replays it from path.
func (p *Pipeline) Annotate(f *Finding, path string) {
	shrunk := fmt.Sprintf("minimized from %d ops to %d (%d candidates tried", len(f.Original.Steps), len(f.Minimized.Steps), f.Stats.Calls)
	switch {
	case f.Flaky:
		shrunk = fmt.Sprintf("not minimized: flaky (%d judgements again, none failed %s", f.Replays, f.Invariant)
	case f.Unreproduced > 0:
		shrunk = fmt.Sprintf("not minimized: its %d-op candidate did not fail once more when judged again, so the %d ops that did are kept (%d candidates tried", f.Unreproduced, len(f.Minimized.Steps), f.Stats.Calls)
	case f.Stats.Cut:
		shrunk += ", cut short by the minimizer's limits: sbxfuzz minimize -w FILE goes on"
	}
	if f.Stateful {
		shrunk += ", on a sandbox that had judged other scenarios: alone, on a fresh one, this file passes"
	}
	f.Minimized.Comment = []string{
		"finding: " + f.Invariant.String(),
		f.Explanation(),
		fmt.Sprintf("sandbox: %s; %s%s%s%s", p.SUT, f.Origin, ClassMark, f.Class, causeClause(f)),
		shrunk + "); expectations are the oracle model's results",
		"reproduce: " + p.command(path),
	}
}

// causeClause is the header's words on f's Cause, after the attack class
// that drew the op: an attack drawn as a prefix sibling may have left
// every root another way.
func causeClause(f *Finding) string {
	if f.Cause == "" {
		return ""
	}
	return causeMark + f.Cause
}

// NamesCause reports whether sc's header, a campaign's finding's, names
// the cause it was minimized to.
func NamesCause(sc *scenario.Scenario) bool {
	return slices.ContainsFunc(sc.Comment, func(l string) bool {
		return strings.HasPrefix(l, "sandbox: ") && strings.Contains(l, causeMark)
	})
}

// NamedInvariant returns the invariant sc's header, a finding's that
// sbxfuzz wrote, says it was found for, and whether it names one.
func NamedInvariant(sc *scenario.Scenario) (string, bool) {
	if len(sc.Comment) == 0 {
		return "", false
	}
	id, ok := strings.CutPrefix(sc.Comment[0], "finding: ")
	return strings.TrimSpace(id), ok
}

// causeMark starts the clause of a header's sandbox line that names the
// finding's cause.
const causeMark = "; cause: "

// ClassMark starts the clause of a header's sandbox line that names the
// attack class of the violating op.
const ClassMark = "; class of the violating op: "

// relabel is line, a header's sandbox line without its cause clause,
// with the class it names labelled anew by the Pipeline's Class for the
// minimized f: a file minimized again may lose the links its class
// names.
func (p *Pipeline) relabel(line string, f *Finding) string {
	j := strings.LastIndex(line, ClassMark)
	if j < 0 || p.Class == nil {
		return line
	}
	c, ok := attack.Parse(line[j+len(ClassMark):])
	if !ok {
		return line
	}
	f.Class = p.Class(f.Minimized, f.MinStep, c)
	return line[:j+len(ClassMark)] + f.Class.String()
}

// AnnotateInPlace writes the header of a finding minimized in the file it
// was read from (sbxfuzz minimize): orig's own comment, kept, and a line
// naming the invariant it was minimized for, the sandbox, how many ops of
// orig it shrank to, and how many ops the sandbox's adapter left out of
// orig first (leftOut; f.Original is orig narrowed by the adapter). When
// orig is a finding sbxfuzz wrote, the lines of its header that the
// minimization made stale (the invariant and the oracle's words, how it
// was minimized) are written anew, and its reproduce line names path
// when path is not "" (the file written); where it was found is kept.
func (p *Pipeline) AnnotateInPlace(f *Finding, orig *scenario.Scenario, leftOut int, path string) {
	comment := slices.Clone(orig.Comment)
	if len(comment) > 0 && strings.HasPrefix(comment[0], "finding: ") {
		comment = freshHeader(comment, f)
		if i := slices.IndexFunc(comment, func(l string) bool { return strings.HasPrefix(l, "sandbox: ") }); i >= 0 {
			if j := strings.LastIndex(comment[i], causeMark); j >= 0 {
				comment[i] = comment[i][:j]
			}
			comment[i] = p.relabel(comment[i], f) + causeClause(f)
		}
		if i := slices.IndexFunc(comment, func(l string) bool { return strings.HasPrefix(l, "reproduce: ") }); i >= 0 && path != "" {
			comment[i] = "reproduce: " + p.command(path)
		}
	}
	dropped := ""
	if leftOut > 0 {
		dropped = fmt.Sprintf("; %d ops %s cannot express left out first", leftOut, p.SUT)
	}
	if f.Stats.Cut {
		dropped += "; cut short by the minimizer's limits: minimizing the file again goes on"
	}
	if f.Stateful {
		dropped += "; on a sandbox that had judged it before: alone, on a fresh one, this file passes"
	}
	line := fmt.Sprintf("minimized for %s on %s: %d ops to %d (%d candidates tried%s)",
		f.Invariant, p.SUT, len(orig.Steps), len(f.Minimized.Steps), f.Stats.Calls, dropped)
	if i := slices.IndexFunc(comment, func(l string) bool { return strings.HasPrefix(l, "reproduce: ") }); i >= 0 {
		comment = slices.Insert(comment, i, line) // before the command, as Annotate writes it
	} else {
		comment = append(comment, line)
	}
	f.Minimized.Comment = comment
}

// staleHeader are the starts of the lines of a finding's header (Annotate,
// and the campaign's notes) that a new minimization makes stale.
var staleHeader = []string{"finding: ", "step ", "flaky: ", "minimized from ", "not minimized", "minimized for ", "not judged again: "}

// freshHeader is the header comment of a finding file, its stale lines
// (staleHeader) left out and the invariant and f's explanation written
// first; the other lines (where it was found, how to reproduce it, the
// user's own) are kept in their order.
func freshHeader(comment []string, f *Finding) []string {
	out := []string{"finding: " + f.Invariant.String(), f.Explanation()}
	for _, l := range comment {
		if !slices.ContainsFunc(staleHeader, func(p string) bool { return strings.HasPrefix(l, p) }) {
			out = append(out, l)
		}
	}
	return out
}

// Write annotates f for its file in dir and writes it there atomically,
// creating dir, and returns the file's path. A file already there under the
// same name holds the same scenario (the name hashes it), and is replaced:
// only its header may differ.
func (p *Pipeline) Write(dir string, f *Finding) (string, error) {
	path := filepath.Join(dir, f.FileName())
	p.Annotate(f, path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := fsutil.WriteAtomic(path, f.Minimized.Format(), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// StricterFileName is the name of the file WriteStricter writes for
// reason: a reason is a short label of letters and dashes.
func StricterFileName(reason string) string { return "stricter-" + reason + ".sbx" }

// stricterHeader begins the first comment line of a file WriteStricter
// writes; the reason follows it.
const stricterHeader = "stricter than the model, not a finding: the sandbox refused an op of this scenario that the model allows (SPEC §14), counted under "

// StricterReason returns the reason a file WriteStricter wrote was
// written for, read from its header, or "" for any other scenario.
func StricterReason(sc *scenario.Scenario) string {
	if len(sc.Comment) == 0 {
		return ""
	}
	rest, ok := strings.CutPrefix(sc.Comment[0], stricterHeader)
	if !ok {
		return ""
	}
	reason, _, _ := strings.Cut(rest, " ")
	return reason
}

// WriteStricter writes sc, the scenario of a check in which the sandbox
// refused ops that the model allows (SPEC §14: stricter, counted under
// reason, n ops in the campaign), to dir atomically, creating dir, and
// returns the file's path. Its header says it is no finding and how to
// replay it; replay marks the step refused. It has no expectations: there
// the sandbox's answer differs from the model's, and is meant to.
func (p *Pipeline) WriteStricter(dir, reason, origin string, n int64, sc *scenario.Scenario) (string, error) {
	path := filepath.Join(dir, StricterFileName(reason))
	c := sc.Clone()
	for i := range c.Steps {
		c.Steps[i].Expect, c.Steps[i].Comment, c.Steps[i].Line = nil, nil, 0
	}
	c.World.Routes = fetchable(c)
	ops := "ops"
	if n == 1 {
		ops = "op"
	}
	c.Comment = []string{
		fmt.Sprintf(stricterHeader+"%s (%d %s in all)", reason, n, ops),
		fmt.Sprintf("sandbox: %s; %s", p.SUT, origin),
		"reproduce: " + p.command(path),
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := fsutil.WriteAtomic(path, c.Format(), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// fetchable is the routes of sc that a fetch of it can reach: those of
// a path an op fetches or a redirect names, redirects, and "/". The rest
// (a megabyte of a route no op of the cut scenario asks) would only make
// a stricter op's file, which is not minimized, heavy to read.
func fetchable(sc *scenario.Scenario) []scenario.Route {
	paths := map[string]bool{"/": true}
	for _, st := range sc.Steps {
		if st.Op.Kind == core.OpFetch && len(st.Op.Args) == 2 {
			paths[st.Op.Args[1]] = true
		}
	}
	var keep []scenario.Route
	for _, r := range sc.World.Routes {
		named := slices.ContainsFunc(sc.World.Routes, func(d scenario.Route) bool { return d.Redirect && strings.Contains(d.Body, r.Path) })
		if r.Redirect || paths[r.Path] || named {
			keep = append(keep, r)
		}
	}
	return keep
}

// CommandName is command, the words argv, as a finding's sandbox names it:
// as given, or, when anchored differs from argv (its relative program or
// script made absolute, proc.Anchored), anchored as a shell reads it back,
// so that a reproduce line works from any directory.
func CommandName(command string, argv, anchored []string) string {
	if slices.Equal(argv, anchored) {
		return command
	}
	return CommandLine(anchored)
}

// CommandLine is argv as a POSIX shell reads it back, each word quoted
// where it needs it (QuoteArg).
func CommandLine(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = QuoteArg(w)
	}
	return strings.Join(words, " ")
}

// QuoteArg quotes a command-line word for a POSIX shell when it needs it.
// A word holding a character that does not show as itself (inert.Unseen,
// or a byte that is no UTF-8) or a tab is quoted as $'…' with that
// character's bytes as \xHH escapes: a finding's header and the terminal
// write such a character as an escape (a tab copied from a terminal
// pastes as spaces), and a line in '…' would then name another word. The
// shells people type in read $'…' (bash, zsh, ksh, POSIX.1-2024's sh);
// dash does not, and reads such a word as another.
func QuoteArg(s string) string {
	if inert.String(s) != s || strings.ContainsRune(s, '\t') {
		return dollarQuote(s)
	}
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>*?()[]{}#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dollarQuote is s quoted as $'…': each byte of an unseen character or a
// tab, and each byte that is no UTF-8, as \xHH; a backslash and a quote
// escaped; every other character as itself.
func dollarQuote(s string) string {
	b := []byte("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, inert.Unseen(r), r == '\t':
			for _, c := range []byte(s[i : i+n]) {
				b = fmt.Appendf(b, `\x%02x`, c)
			}
		case r == '\\' || r == '\'':
			b = append(b, '\\', byte(r))
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(append(b, '\''))
}
