// Package finding is the one path from a raw finding — a scenario and the
// invariant the oracle found violated on it — to a reproducer on disk:
// minimize (bounded), explain, write the model's results as expectations,
// annotate with a header that names the sandbox and the command that
// replays it, and write atomically. Campaigns (sbxfuzz run), sbxfuzz import,
// sbxfuzz minimize and the public sbxtest API all go through it, so a
// finding reads the same wherever it was found.
package finding

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
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
	Limits  minimize.Limits // bounds of each minimization
	// Command returns the command that replays the file at path; nil means
	// "sbxfuzz replay --sut SUT path".
	Command func(path string) string
	// Adapt, when set, is the sandbox's sut.Target.Adapt: a candidate it
	// would narrow (a scenario the sandbox cannot express) is refused, so
	// that minimizing never walks into what the sandbox cannot be asked.
	Adapt func(*scenario.Scenario) *scenario.Scenario
}

// Finding is one violation, minimized.
type Finding struct {
	Invariant oracle.ID
	Step      int          // the step of the original scenario (0: whole run)
	Class     attack.Class // the class of the op at Step
	Detail    string       // the oracle's words, on the original scenario
	Origin    string       // where it came from: "seed 1, check 42", "imported from x"
	Original  *scenario.Scenario
	Minimized *scenario.Scenario // with the model's results as expectations
	MinDetail string             // the oracle's words on the minimized scenario
	MinStep   int                // the step at which the minimized scenario fails
	Stats     minimize.Stats
}

// Process minimizes sc for the invariant f names, explains the result and
// writes the model's results into it as expectations. sc is not modified.
// A hang finding is minimized with HangTimeout per op and within HangTime.
func (p *Pipeline) Process(sc *scenario.Scenario, f oracle.Finding, origin string) *Finding {
	timeout, start, lim := p.Timeout, time.Duration(0), p.Limits
	if f.Hang {
		start = max(p.Timeout, oracle.DefaultTimeout) // a slow start is not the hang being minimized
		timeout = HangTimeout
		if p.Timeout > 0 && p.Timeout < HangTimeout {
			timeout = p.Timeout
		}
		if lim.Time <= 0 || lim.Time > HangTime {
			lim.Time = HangTime
		}
	}
	pred := minimize.ViolatesLike(p.Factory, f, timeout, start)
	if p.Adapt != nil {
		violates := pred
		pred = func(c *scenario.Scenario) bool {
			a := p.Adapt(c)
			return a != nil && a.Equal(c) && violates(c) // what the adapter leaves as it is
		}
	}
	min, stats := minimize.Minimize(sc, f.Step, pred, lim)
	out := &Finding{Invariant: f.Invariant, Step: f.Step, Class: sc.ClassAt(f.Step - 1), Detail: f.Detail,
		Origin: origin, Original: sc, Minimized: min, Stats: stats}
	out.MinDetail, out.MinStep = p.explain(min, f.Invariant, p.Timeout)
	Expect(min)
	return out
}

// explain judges the minimized scenario again for the oracle's words.
func (p *Pipeline) explain(sc *scenario.Scenario, id oracle.ID, timeout time.Duration) (string, int) {
	c, err := oracle.NewCase(sc)
	if err != nil {
		return err.Error(), 0
	}
	for _, fd := range oracle.Check(p.Factory, c, new(oracle.Coverage), oracle.Options{Timeout: timeout}) {
		if fd.Invariant == id {
			return fd.Detail, fd.Step
		}
	}
	return "the minimized scenario no longer fails (the sandbox is nondeterministic)", 0
}

// Expect writes into sc, as expectations, the results SPEC §5 gives for
// its ops by the oracle's independent model. A scenario whose grant is
// invalid is left as it is.
func Expect(sc *scenario.Scenario) {
	c, err := oracle.NewCase(sc)
	if err != nil {
		return
	}
	for i, r := range oracle.Expected(c) {
		sc.Steps[i].Expect = &scenario.Expect{Kind: r.Kind, Data: r.Data, HasData: r.Data != ""}
	}
}

// FileName is the name a finding is written under: its invariant and a
// hash of its minimized text without comments, so the same finding always
// lands in the same file and two different ones never collide by accident.
func (f *Finding) FileName() string {
	c := *f.Minimized
	c.Comment = nil
	h := fnv.New32a()
	h.Write(c.Format())
	return fmt.Sprintf("%s-%08x.sbx", f.Invariant, h.Sum32())
}

// Explanation is the oracle's words on the minimized scenario, on one line,
// led by its step.
func (f *Finding) Explanation() string {
	s := strings.ReplaceAll(f.MinDetail, "\n", " ")
	if f.MinStep > 0 {
		s = fmt.Sprintf("step %d: %s", f.MinStep, s)
	}
	return s
}

// command returns the command that replays the file at path.
func (p *Pipeline) command(path string) string {
	if p.Command != nil {
		return p.Command(path)
	}
	return fmt.Sprintf("sbxfuzz replay --sut %s %s", QuoteArg(p.SUT), filepath.ToSlash(path))
}

// Annotate writes the finding's header comment into its minimized
// scenario: the invariant, the explanation, where it came from, how much it
// shrank, and the command that replays it from path.
func (p *Pipeline) Annotate(f *Finding, path string) {
	shrunk := fmt.Sprintf("minimized from %d ops to %d (%d candidates tried", len(f.Original.Steps), len(f.Minimized.Steps), f.Stats.Calls)
	if f.Stats.Cut {
		shrunk += ", cut short by the minimizer's limits"
	}
	f.Minimized.Comment = []string{
		"finding: " + f.Invariant.String(),
		f.Explanation(),
		fmt.Sprintf("sandbox: %s; %s; class of the violating op: %s", p.SUT, f.Origin, f.Class),
		shrunk + "); expectations are the oracle model's results",
		"reproduce: " + p.command(path),
	}
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

// QuoteArg quotes a command-line word for a POSIX shell when it needs it.
func QuoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>*?()[]{}#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
