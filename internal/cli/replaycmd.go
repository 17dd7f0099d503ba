package cli

import (
	"encoding/json"
	"fmt"
	"io"
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
DIR. Exit 1 if any expectation is unmet or any invariant violated.`)
	sutName := fs.String("sut", sut.Reference, sutHelp)
	format := formatFlag(fs, "text", "json")
	timeout := timeoutFlag(fs)
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if !checkFormat(e, *format, "text", "json") || !checkTimeout(e, *timeout) {
		return ExitUsage
	}
	factory, end, err := e.session(*sutName)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	defer end()
	files, err := fsutil.ExpandPatterns(fs.Args(), ".sbx")
	if err != nil {
		return errorf(e, "%v", err)
	}
	if len(files) == 0 {
		return errorf(e, "replay: no files given (try 'sbxfuzz replay -h')")
	}
	// Parse everything first: bad input is exit 2 before any output.
	scs := make([]*scenario.Scenario, len(files))
	for i, name := range files {
		if scs[i], err = load(name); err != nil {
			fmt.Fprintln(e.stderr, err)
			return ExitUsage
		}
	}
	status := ExitOK
	for i, name := range files {
		out, err := replay.RunWithin(name, scs[i], factory, nil, *timeout)
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			return ExitUsage
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

func writeReplayText(w io.Writer, out *replay.Outcome) error {
	fmt.Fprintf(w, "%s\n", out.Name)
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
	verdict := "ok"
	if out.Failed() {
		verdict = fmt.Sprintf("FAIL: %d unmet expectations, %d findings", len(unmet), len(out.Findings))
	}
	_, err := fmt.Fprintf(w, "%s: %d steps, %s\n\n", out.Name, len(out.Steps), verdict)
	return err
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

func writeReplayJSON(w io.Writer, out *replay.Outcome) error {
	doc := replayJSON{File: out.Name, OK: !out.Failed(), Steps: []stepJSON{}, Journal: []string{},
		Violations: []violationJSON{}, Unmet: []unmetJSON{}}
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
