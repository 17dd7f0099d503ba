package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

func runReplay(e *env, args []string) int {
	fs := newFlags(e, "replay", "[--sut NAME] [--format text|json] FILE...", `
Replay each scenario on the sandbox under test with the oracle watching every
op, hold each op to its expectation, and print the step table — step, op,
result, hard, ops/wall/output used, what the step added to the journal —
followed by the findings in plain words. Every op runs, after a halt too, so
the latch is checked. A FILE of the form DIR/... stands for every .sbx below
DIR. A real sandbox (osroot, mcp:) is asked what run would ask it: the ops
its adapter cannot express are skipped and counted, not judged, and an
expectation is held only where SPEC §5 gives the same result on what is
asked. Exit 1 if any expectation is unmet or any invariant violated; 3 on
SIGINT, SIGTERM or SIGHUP.`)
	sutName := fs.String("sut", sut.Reference, sutHelp)
	treeDirFlag(e, fs)
	format := formatFlag(fs, "text", "json")
	timeout := timeoutFlag(e, fs)
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if !checkFormat(e, *format, "text", "json") || !checkTimeout(e, *timeout) {
		return ExitUsage
	}
	target, err := e.target(*sutName)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	files, err := fsutil.ExpandPatterns(fs.Args(), ".sbx")
	if err != nil {
		return errorf(e, "%v", err)
	}
	if len(files) == 0 {
		return errorf(e, "replay: no files given (try 'sbxfuzz replay -h')")
	}
	// Parse everything first: bad input is exit 2 before any output, and
	// before the sandbox is started.
	scs := make([]*scenario.Scenario, len(files))
	for i, name := range files {
		if scs[i], err = loadFor(target, name); err != nil {
			return printError(e, err)
		}
	}
	factory, end, err := startSession(e, target)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	defer end()
	status := ExitOK
	for i, name := range files {
		out, err := replayNarrowed(target, name, scs[i], factory, e.oracleOptions())
		if err != nil {
			return printError(e, err)
		}
		if out.Failed() {
			status = ExitFinding
		}
		if *format == "json" {
			err = writeReplayJSON(e.stdout, out)
		} else {
			err = writeReplayText(e.stdout, out)
		}
		if err != nil {
			return errorf(e, "%v", err)
		}
	}
	return status
}

// load reads and parses one scenario file.
func load(name string) (*scenario.Scenario, error) {
	src, err := fsutil.ReadInput(name)
	if err != nil {
		return nil, err
	}
	return scenario.Parse(name, src)
}

func writeReplayText(w io.Writer, out *narrowedOutcome) error {
	fmt.Fprintf(w, "%s\n", out.Name)
	if out.nothing {
		_, err := fmt.Fprintf(w, "%s: skipped: %s can express none of its %d steps (not run, not judged)\n\n", out.Name, out.sut, len(out.skipped))
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tOP\tRESULT\tHARD\tOPS\tWALL\tOUTPUT\tJOURNAL")
	for _, s := range out.Steps {
		mark := ""
		if s.Unmet != "" {
			mark = "  ✗ " + s.Unmet
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%d\t%s%s\n", s.Step, clip(oracle.FormatOp(s.Op), 48),
			clip(replay.Describe(s.Result.Kind, s.Result.Data, s.Result.Data != ""), 32), yesNo(s.Result.Hard),
			s.Usage.Ops, s.Usage.Wall, s.Usage.Output, clip(journalText(s.Entries), 80), mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	unmet := out.Unmet()
	for _, s := range unmet {
		fmt.Fprintf(w, "%s:%d: step %d: %s: %s\n", out.Name, s.Line, s.Step, oracle.FormatOp(s.Op), s.Unmet)
	}
	for _, f := range out.Findings {
		fmt.Fprintf(w, "%s: %s\n", out.Name, f)
	}
	if len(out.skipped) > 0 {
		fmt.Fprintf(w, "%s: %s skipped: %s cannot express %s (not run, not judged)\n", out.Name, stepList(out.skipped), out.sut, them(len(out.skipped)))
	}
	if len(out.notHeld) > 0 {
		fmt.Fprintf(w, "%s: expectation of %s not held: on what %s can be asked, SPEC §5 gives another result\n", out.Name, stepList(out.notHeld), out.sut)
	}
	verdict := "ok"
	if out.Failed() {
		verdict = fmt.Sprintf("FAIL: %d unmet expectations, %d findings", len(unmet), len(out.Findings))
	}
	skipped := ""
	if len(out.skipped) > 0 {
		skipped = fmt.Sprintf(" (%d skipped)", len(out.skipped))
	}
	_, err := fmt.Fprintf(w, "%s: %d steps%s, %s\n\n", out.Name, len(out.Steps), skipped, verdict)
	return err
}

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

func journalText(entries []core.Entry) string {
	if len(entries) == 0 {
		return "-"
	}
	parts := make([]string, len(entries))
	for i, en := range entries {
		parts[i] = en.String()
	}
	return strings.Join(parts, "; ")
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

type replayJSON struct {
	File       string          `json:"file"`
	OK         bool            `json:"ok"`
	Steps      []stepJSON      `json:"steps"`
	Journal    []string        `json:"journal"`
	Violations []violationJSON `json:"violations"`
	Unmet      []unmetJSON     `json:"unmet"`
	// Skipped lists the steps the sandbox cannot express (its adapter
	// leaves them out, as a campaign does): not run, not judged.
	Skipped []int `json:"skipped,omitempty"`
	// NotHeld lists the steps whose expectation was not held: on what the
	// sandbox can be asked, SPEC §5 gives another result.
	NotHeld []int `json:"expectations_not_held,omitempty"`
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
}

type violationJSON struct {
	Invariant string `json:"invariant"`
	Step      int    `json:"step"`
	Detail    string `json:"detail"`
}

type unmetJSON struct {
	Step   int    `json:"step"`
	Line   int    `json:"line"`
	Detail string `json:"detail"`
}

func writeReplayJSON(w io.Writer, out *narrowedOutcome) error {
	doc := replayJSON{File: out.Name, OK: !out.Failed(), Steps: []stepJSON{}, Journal: []string{},
		Violations: []violationJSON{}, Unmet: []unmetJSON{}, Skipped: out.skipped, NotHeld: out.notHeld}
	for _, s := range out.Steps {
		js := stepJSON{Step: s.Step, Op: oracle.FormatOp(s.Op), Kind: s.Result.Kind.String(), Hard: s.Result.Hard,
			Data: s.Result.Data, OpsUsed: s.Usage.Ops, WallUsed: s.Usage.Wall, OutputUsed: s.Usage.Output, Journal: []string{}}
		for _, en := range s.Entries {
			js.Journal = append(js.Journal, en.String())
			doc.Journal = append(doc.Journal, en.String())
		}
		doc.Steps = append(doc.Steps, js)
		if s.Unmet != "" {
			doc.Unmet = append(doc.Unmet, unmetJSON{Step: s.Step, Line: s.Line, Detail: s.Unmet})
		}
	}
	for _, f := range out.Findings {
		doc.Violations = append(doc.Violations, violationJSON{Invariant: f.Invariant.String(), Step: f.Step, Detail: f.Detail})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
