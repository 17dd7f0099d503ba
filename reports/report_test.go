package reports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// campaignResult runs one small campaign per worker count, once.
var campaignResult = func() func(t *testing.T, workers int) *campaign.Result {
	var mu sync.Mutex
	done := map[int]*campaign.Result{}
	return func(t *testing.T, workers int) *campaign.Result {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if res, ok := done[workers]; ok {
			return res
		}
		res, err := campaign.Run(context.Background(), campaign.Config{Seed: 7, Checks: 1000, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		done[workers] = res
		return res
	}
}()

func render(t *testing.T, r *reports.Report, f reports.Format) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// withoutTiming drops the lines that may differ between runs.
func withoutTiming(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !reports.IsTimingLine(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestSameSeedSameReport(t *testing.T) {
	a := campaign.NewReport(campaignResult(t, 1), "reference")
	b := campaign.NewReport(campaignResult(t, 3), "reference")
	for _, f := range []reports.Format{reports.Text, reports.Markdown} {
		ra, rb := render(t, a, f), render(t, b, f)
		if diff := cmp.Diff(withoutTiming(ra), withoutTiming(rb)); diff != "" {
			t.Errorf("%s: 1 worker and 3 workers differ beyond timing lines (-1 worker +3 workers):\n%s", f, diff)
		}
		if diff := cmp.Diff(ra, render(t, a, f)); diff != "" {
			t.Errorf("%s: one report rendered twice differs (-first +second):\n%s", f, diff)
		}
	}
	var sa, sb bytes.Buffer
	if err := a.WriteSVG(&sa); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteSVG(&sb); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sa.String(), sb.String()); diff != "" {
		t.Errorf("the heat maps of 1 and 3 workers differ (-1 worker +3 workers):\n%s", diff)
	}
}

// A default campaign checks every invariant on every class it applies to
// and reaches every result kind; the only gaps are the explained ones.
func TestDefaultCampaignHasNoUnexplainedGap(t *testing.T) {
	r := campaign.NewReport(campaignResult(t, 0), "reference")
	if gs := r.UnexplainedGaps(); len(gs) > 0 {
		t.Errorf("unexplained gaps: %+v", gs)
	}
	if len(r.UnreachedKinds) > 0 {
		t.Errorf("kinds never reached: %v", r.UnreachedKinds)
	}
	for _, row := range r.Invariants {
		if row.Checked == 0 {
			t.Errorf("%s never checked", row.ID)
		}
	}
	for _, row := range r.Classes {
		if row.Ops == 0 {
			t.Errorf("class %s ran no ops", row.ID)
		}
	}
	for _, g := range r.Gaps {
		if !g.Explained || g.Explanation == reports.Unexplained {
			t.Errorf("gap %+v", g)
		}
	}
}

func TestExplainOnlyStructuralCells(t *testing.T) {
	for _, c := range []attack.Class{attack.UnknownTool, attack.ToolVariant, attack.UnknownOp,
		attack.SymlinkEscape, attack.SymlinkParent, attack.SymlinkLoop} {
		if why, ok := reports.Explain(oracle.NoInternalEgress, c); !ok || !strings.Contains(why, "net_fetch") {
			t.Errorf("no-internal-egress × %s: %q %v", c, why, ok)
		}
	}
	for _, cell := range []struct {
		inv   oracle.ID
		class attack.Class
	}{{oracle.NoInternalEgress, attack.IPSpelling}, {oracle.Confinement, attack.UnknownOp}, {oracle.HaltLatched, attack.Benign},
		{oracle.NoEffectOnDenial, attack.SymlinkEscape}, {oracle.Confinement, attack.SymlinkParent}, {oracle.HaltLatched, attack.SymlinkLoop}} {
		if why, ok := reports.Explain(cell.inv, cell.class); ok {
			t.Errorf("%s × %s explained as %q: it must be reachable", cell.inv, cell.class, why)
		}
	}
}

// hostile is a report whose data carries everything that can break a
// table: pipes, newlines, HTML, backticks, NUL and invalid UTF-8, and an
// unexplained gap, a violation, an unreached kind and a survivor. It
// claims the checks of a full campaign, so that its gaps are GAPs.
func hostile(t *testing.T) *reports.Report {
	t.Helper()
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(campaign.NewReport(campaignResult(t, 1), "mutant:a|b`c")); err != nil {
		t.Fatal(err)
	}
	// Zero a cell and a kind through the JSON, as a saved summary would.
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	inv := m["invariants"].([]any)[1].(map[string]any) // confinement
	delete(inv["by_class"].(map[string]any), "traversal")
	inv["violations_by_class"] = map[string]any{"benign": 2}
	for _, c := range m["classes"].([]any) {
		delete(c.(map[string]any)["kinds"].(map[string]any), "max_wall")
	}
	var points []reports.DimensionPoint // a third of the points unhit
	for i, p := range dims.Catalog() {
		points = append(points, point(p, uint64(i%3)))
	}
	m["dimensions"] = points
	m["checks"] = reports.FullChecks
	m["not_applicable"] = map[string]any{"grant-immutable": "a reason | with a bar\nand a line"}
	m["kinds_not_applicable"] = map[string]any{"egress_internal": "a kind's | reason\nand a line"}
	b.Reset()
	if err := json.NewEncoder(&b).Encode(m); err != nil {
		t.Fatal(err)
	}
	r, err := reports.Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	r.Findings = append(r.Findings, reports.Finding{Invariant: "confinement", Class: "traversal", Check: 3, Step: 2,
		Detail: "fs_read \"/a|b\"\nsecond line <script>alert(1)</script> `tick` *star* _u_ \x00 \xff | end \\", OriginalOps: 9, MinimizedOps: 1},
		// A summary given to --from is data too: its finding's invariant
		// and class are not known to be the catalogue's.
		reports.Finding{Invariant: "confinement|x", Class: "tra|versal\nnext", Check: 4, Step: 1, Detail: "d", OriginalOps: 1, MinimizedOps: 1})
	r.Mutants = []reports.Kill{{Mutant: "raw|prefix", RedFlag: "a | b\nc", Killed: false, Checks: 10},
		{Mutant: "killed", Killed: true, Invariant: "confinement|x\ny", Checks: 3}}
	r.Stricter = map[string]int64{"a reason|x\ny": 1}
	return r
}

// splitRow splits a Markdown table row on its unescaped pipes.
func splitRow(line string) []string {
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			cur.WriteByte(line[i])
			if i+1 < len(line) {
				i++
				cur.WriteByte(line[i])
			}
		case '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, cur.String())
}

func TestMarkdownTablesAreWellFormed(t *testing.T) {
	md := render(t, hostile(t), reports.Markdown)
	tables, cols, row := 0, 0, 0
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols, row = 0, 0
			continue
		}
		if !strings.HasSuffix(line, "|") || strings.HasSuffix(line, "\\|") {
			t.Fatalf("line %d does not end a row: %q", i+1, line)
		}
		cells := splitRow(line)
		cells = cells[1 : len(cells)-1]
		row++
		switch row {
		case 1:
			tables++
			cols = len(cells)
		case 2:
			for _, c := range cells {
				if strings.Trim(strings.TrimSpace(c), ":-") != "" {
					t.Fatalf("line %d: not a delimiter row: %q", i+1, line)
				}
			}
		}
		if len(cells) != cols {
			t.Fatalf("line %d has %d cells, its header %d: %q", i+1, len(cells), cols, line)
		}
	}
	if tables != 10 {
		t.Errorf("%d tables, want 10 (summary, findings, stricter, invariants, matrix, gaps, kinds, dimensions, dimension gaps, kills)", tables)
	}
	for _, want := range []string{
		`fs\_read "/a\|b"\\nsecond line \<script\>`, "\\`tick\\`", `\\x00 \\xff \| end \\`,
		"**GAP**", "unexplained gap", " ✗2 ", "**never**", "> [!WARNING]", "`raw\\|prefix`",
		"`sbxfuzz/findings/mutant-a-b-c-c9129bc4` under the user's cache directory",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "<script>") {
		t.Error("raw HTML from data reached the Markdown")
	}
}

func TestTextKeepsOneValuePerLine(t *testing.T) {
	text := render(t, hostile(t), reports.Text)
	for _, want := range []string{`fs_read "/a|b"\nsecond line <script>`, `\x00 \xff | end`, "UNEXPLAINED", "WARNING:", "GAP"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if strings.ContainsAny(text, "\x00\r") || strings.Contains(text, "**") {
		t.Error("text carries control bytes or Markdown")
	}
	if n := strings.Count(text, "ops/s"); n != 1 {
		t.Errorf("%d lines carry ops/s, want the summary's one", n)
	}
}

func TestSVGIsWellFormed(t *testing.T) {
	for _, r := range []*reports.Report{campaign.NewReport(campaignResult(t, 1), "reference"), hostile(t)} {
		var b bytes.Buffer
		if err := r.WriteSVG(&b); err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(&b)
		cells, texts := 0, 0
		var all strings.Builder
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
				if tok.Name.Local == "title" {
					cells++
				}
				if tok.Name.Local == "text" {
					texts++
				}
			case xml.CharData:
				all.Write(tok)
			}
		}
		want := len(oracle.Invariants()) * len(attack.All())
		if r.HasDimensions() {
			want += len(dims.Catalog()) // the panel's points
		}
		if cells != want {
			t.Errorf("%d cells, want %d", cells, want)
		}
		for _, want := range []string{fmt.Sprintf("seed 7, %d checks", r.Checks), "no-effect-on-denial", "malformed-op", "n/a", "log scale"} {
			if !strings.Contains(all.String(), want) {
				t.Errorf("heat map lacks %q", want)
			}
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := hostile(t)
	var b bytes.Buffer
	if err := r.Write(&b, reports.JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Invariants []struct {
			ID                string            `json:"id"`
			Checked           uint64            `json:"checked"`
			Violations        uint64            `json:"violations"`
			ByClass           map[string]uint64 `json:"by_class"`
			ViolationsByClass map[string]uint64 `json:"violations_by_class"`
		} `json:"invariants"`
		Classes []struct {
			ID    string            `json:"id"`
			Ops   uint64            `json:"ops"`
			Kinds map[string]uint64 `json:"kinds"`
		} `json:"classes"`
		Gaps    []reports.Gap  `json:"gaps"`
		Mutants []reports.Kill `json:"mutants"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Invariants) != 10 || len(doc.Classes) != int(attack.NumClasses)-1 || len(doc.Mutants) != 2 {
		t.Fatalf("%d invariants, %d classes, %d mutants", len(doc.Invariants), len(doc.Classes), len(doc.Mutants))
	}
	if len(doc.Gaps) != 7 {
		t.Errorf("%d gaps, want 7: %+v", len(doc.Gaps), doc.Gaps)
	} else if diff := cmp.Diff(reports.Gap{Invariant: "confinement", Class: "traversal", Explanation: reports.Unexplained}, doc.Gaps[0]); diff != "" {
		t.Errorf("first gap mismatch (-want +got):\n%s", diff)
	}
	again, err := reports.Load(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// JSON carries text, not bytes: the invalid UTF-8 of the detail comes
	// back as U+FFFD. Everything else is the same.
	for i := range r.Findings {
		r.Findings[i].Detail = strings.ToValidUTF8(r.Findings[i].Detail, "\uFFFD")
	}
	if diff := cmp.Diff(render(t, r, reports.Markdown), render(t, again, reports.Markdown)); diff != "" {
		t.Errorf("a report loaded from its own JSON renders differently (-saved +loaded):\n%s", diff)
	}
}

func TestLoadRejectsWhatIsNotASummary(t *testing.T) {
	sum := campaign.Summarize(campaignResult(t, 1), "reference")
	good, _ := json.Marshal(sum)
	if _, err := reports.Load(bytes.NewReader(good)); err != nil {
		t.Fatalf("a run's summary: %v", err)
	}
	edit := func(f func(s *reports.Summary)) string {
		s := campaign.Summarize(campaignResult(t, 1), "reference")
		f(&s)
		b, _ := json.Marshal(s)
		return string(b)
	}
	for _, c := range []struct{ reason, in, want string }{
		{"not JSON", "hello", "not a campaign summary"},
		{"a kill table", `[{"mutant":"x"}]`, "not a campaign summary"},
		{"two values", string(good) + string(good), "more than one"},
		{"unknown invariant", edit(func(s *reports.Summary) { s.Invariants[0].ID = "nope" }), `unknown invariant "nope"`},
		{"missing invariant", edit(func(s *reports.Summary) { s.Invariants = s.Invariants[1:] }), "missing"},
		{"twice", edit(func(s *reports.Summary) { s.Invariants[1] = s.Invariants[0] }), "twice"},
		{"unknown class", edit(func(s *reports.Summary) { s.Invariants[0].ByClass["zzz"] = 1 }), `unknown attack class "zzz"`},
		{"unknown class row", edit(func(s *reports.Summary) { s.Classes[0].ID = "zzz" }), `unknown attack class "zzz"`},
		{"unknown kind", edit(func(s *reports.Summary) { s.Classes[0].Kinds["boom"] = 1 }), `unknown result kind "boom"`},
		{"negative stricter", edit(func(s *reports.Summary) { s.Stricter = map[string]int64{"other": -1} }), `-1 ops for "other"`},
		{"negative skipped lines", edit(func(s *reports.Summary) { s.SkippedStdoutLines = -2 }), "skipped_stdout_lines: -2"},
	} {
		_, err := reports.Load(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.reason, err, c.want)
		}
	}
}

func TestWriteKills(t *testing.T) {
	kills := []reports.Kill{
		{Mutant: "raw-prefix", Killed: true, Invariant: "confinement", Checks: 3, Seconds: 0.25, ReproducerOps: 1},
		{Mutant: "odd|name", Checks: 100},
	}
	var md, text, js bytes.Buffer
	for f, w := range map[reports.Format]*bytes.Buffer{reports.Markdown: &md, reports.Text: &text, reports.JSON: &js} {
		if err := reports.WriteKills(w, f, kills); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"| `raw-prefix`", "confinement", "0.250", "`odd\\|name`", "**no**"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(text.String(), "reproducer ops") || !strings.Contains(text.String(), "odd|name") {
		t.Errorf("text:\n%s", text.String())
	}
	var back []reports.Kill
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("WriteKills JSON does not parse: %v\n%s", err, js.String())
	}
	if diff := cmp.Diff(kills, back); diff != "" {
		t.Errorf("WriteKills JSON round trip mismatch (-want +got):\n%s", diff)
	}
}

// TestStricterInReport: the ops a real sandbox was stricter on are a row
// of the summary table and a section of their own, per reason, the most
// first; they survive the JSON round trip; a campaign with none shows
// neither.
func TestStricterInReport(t *testing.T) {
	sum := campaign.Summarize(campaignResult(t, 1), "mcp:srv")
	plain := render(t, reports.New(sum, nil), reports.Markdown)
	sum.Stricter = map[string]int64{"other": 3, "dangling-write": 9, "read-through-link": 3}
	sum.StricterExamples = map[string]string{"other": "fs_read /data/..hidden", "dangling-write": "fs_write /data/dl x"} // none kept for one
	sum.SkippedStdoutLines = 5
	for _, r := range builtAndLoaded(t, sum) {
		md := squeezeSpaces(render(t, r, reports.Markdown))
		for _, want := range []string{
			"| ops stricter than the model | 15 (dangling-write 9, other 3, read-through-link 3) |",
			"| non-JSON stdout lines skipped | 5 |",
			"## Stricter than the model",
			"| dangling-write | 9 | `fs_write /data/dl x` |\n| other | 3 | `fs_read /data/..hidden` |\n| read-through-link | 3 | - |",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("the report lacks %q:\n%s", want, md)
			}
		}
	}
	for _, unwanted := range []string{"stricter", "stdout lines"} {
		if strings.Contains(strings.ToLower(plain), unwanted) {
			t.Errorf("a campaign with no stricter op mentions %q", unwanted)
		}
	}
}

// builtAndLoaded is the report of sum as built, and as loaded back from
// sum's JSON.
func builtAndLoaded(t *testing.T, sum reports.Summary) []*reports.Report {
	t.Helper()
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(sum); err != nil {
		t.Fatal(err)
	}
	loaded, err := reports.Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	return []*reports.Report{reports.New(sum, nil), loaded}
}

// squeezeSpaces turns each run of spaces into one: table cells are padded.
func squeezeSpaces(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	return s
}

// TestNothingPassedInReport: a door that counts what it lets through and
// let none of the ops the model allows through, refusing some, is a
// warning of the report (a run that judged refusals only is no pass) and
// a row of its summary table, through the JSON round trip; one that let
// one through, or counts nothing, is no warning.
func TestNothingPassedInReport(t *testing.T) {
	sum := campaign.Summarize(campaignResult(t, 1), "proxy:denyall")
	sum.Stricter = map[string]int64{"refused-allowed": 19}
	sum.AllowedPassed = new(int64(0))
	if w := sum.NothingPassedWarning(); w != "" {
		t.Errorf("19 refused: warning %q, want none (too few to say anything of the profile)", w)
	}
	sum.Stricter = map[string]int64{"refused-allowed": 27}
	for _, r := range builtAndLoaded(t, sum) {
		text := render(t, r, reports.Text)
		for _, want := range []string{"WARNING: proxy:denyall let none of the 27 ops the model allows through", "ops the model allows let through"} {
			if !strings.Contains(text, want) {
				t.Errorf("the report lacks %q:\n%s", want, text)
			}
		}
	}
	sum.StaleOps = 2
	if w := sum.StaleWarning(); !strings.Contains(w, "proxy:denyall fetched from a DNS answer of an earlier world (another scenario, or the run a replay repeats) 2 times") || !strings.Contains(w, `"fresh": true`) {
		t.Errorf("StaleWarning() = %q, want the count and the fresh profile", w)
	}
	if w := sum.KeptWarning(); w != "" {
		t.Errorf("no fetch from a kept answer: warning %q, want none", w)
	}
	sum.KeptFetches = 3
	for _, r := range builtAndLoaded(t, sum) {
		text := render(t, r, reports.Text)
		if want := "WARNING: proxy:denyall fetched a name 3 times with no lookup of it in the op, from an answer it kept from an earlier op (a DNS cache"; !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if w := sum.WholeWarning(); w != "" {
		t.Errorf("no read taken whole: warning %q, want none", w)
	}
	sum.WholeReads, sum.WholeExample = 3, "Error: Path must be within allowed directories"
	for _, r := range builtAndLoaded(t, sum) {
		text := render(t, r, reports.Text)
		if want := `WARNING: 3 reads were answered with text the profile's read result finds no content in, taken whole as the file's bytes (the least: "Error: Path must be within allowed directories")`; !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if w := sum.NumberedWarning(); w != "" {
		t.Errorf("no read numbered: warning %q, want none", w)
	}
	sum.NumberedReads = 2
	for _, r := range builtAndLoaded(t, sum) {
		text := render(t, r, reports.Text)
		if want := `WARNING: 2 reads were answered with the file's lines each after a line number, as cat -n writes them, which the profile does not cut`; !strings.Contains(text, want) || !strings.Contains(text, `give its read result a "line_prefix" (" *\\d+\\t" for cat -n`) {
			t.Errorf("the report lacks %q and the line_prefix to give:\n%s", want, text)
		}
	}
	sum.AllowedPassed = new(int64(1))
	if w := sum.NothingPassedWarning(); w != "" {
		t.Errorf("one op let through: warning %q, want none", w)
	}
	sum.AllowedPassed = nil
	if w := sum.NothingPassedWarning(); w != "" {
		t.Errorf("a door that counts nothing: warning %q, want none", w)
	}
}

// TestMostlyStricterWarning: a sandbox that refused more of the ops the
// model allows than it let through, 20 or more, some let through, is a
// warning, which names the documentation range the world's names resolve
// into when most of its refusals are of fetches the model allows for
// their address or name (not for their spelling), and holds_dirs when
// they are of file ops; as many let through, none, or fewer than 20
// refused, is none.
func TestMostlyStricterWarning(t *testing.T) {
	sum := campaign.Summarize(campaignResult(t, 1), "mcp:guard")
	sum.Stricter = map[string]int64{"refused-allowed": 30}
	sum.StricterExamples = map[string]string{"refused-allowed": "net_fetch api.internal /"}
	sum.AllowedPassed = new(int64(10))
	w := sum.MostlyStricterWarning()
	for _, want := range []string{"mcp:guard refused 30 ops the model allows and let 10 through", "203.0.113.0/24"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	if !slices.Contains(sum.SandboxWarnings(), w) {
		t.Errorf("SandboxWarnings %q lacks it", sum.SandboxWarnings())
	}
	sum.Stricter = map[string]int64{"ipv4-spelling": 30}
	sum.StricterExamples = map[string]string{"ipv4-spelling": "net_fetch 0xc0000100 /"}
	if w := sum.MostlyStricterWarning(); w == "" || strings.Contains(w, "203.0.113.0/24") {
		t.Errorf("fetches refused for their spelling: warning %q, want one without the documentation range", w)
	}
	sum.Stricter = map[string]int64{"refused-allowed": 30}
	sum.StricterExamples = map[string]string{"refused-allowed": "fs_read /data/a"}
	if w := sum.MostlyStricterWarning(); w == "" || strings.Contains(w, "203.0.113.0/24") || !strings.Contains(w, `"holds_dirs": true`) {
		t.Errorf("file ops refused: warning %q, want one without the fetch hint, naming holds_dirs", w)
	}
	sum.ByKind = map[string]reports.KindCounts{"fs_read": {AllowedPassed: 10}, "fs_write": {Stricter: 30}}
	if w, want := sum.MostlyStricterWarning(), "let 10 through (fs_read 10 let through, 0 refused; fs_write 0 let through, 30 refused), so"; !strings.Contains(w, want) {
		t.Errorf("reads let through, writes refused: warning %q lacks %q", w, want)
	}
	if w := sum.KindNothingPassedWarning(); w != "" {
		t.Errorf("KindNothingPassedWarning() = %q beside the warning that splits by kind, want none", w)
	}
	sum.ByKind = nil
	for _, tc := range []struct{ stricter, passed int64 }{{30, 30}, {30, 0}, {19, 1}} {
		sum.Stricter, sum.AllowedPassed = map[string]int64{"refused-allowed": tc.stricter}, new(tc.passed)
		if w := sum.MostlyStricterWarning(); w != "" {
			t.Errorf("%d refused, %d let through: warning %q, want none", tc.stricter, tc.passed, w)
		}
	}
}

// TestKindNothingPassedWarning: a sandbox that let none of the ops of
// one kind the model allows through, 20 or more refused, while it let
// others through, is a warning naming the kind, through the JSON round
// trip; 19 refused, one let through, or nothing of other kinds let
// through (NothingPassedWarning's case) is none.
func TestKindNothingPassedWarning(t *testing.T) {
	sum := campaign.Summarize(campaignResult(t, 1), "mcp:asks")
	sum.Stricter, sum.AllowedPassed = map[string]int64{"refused-allowed": 25}, new(int64(107))
	sum.ByKind = map[string]reports.KindCounts{"fs_read": {AllowedPassed: 107}, "fs_write": {Stricter: 25}}
	want := "WARNING: mcp:asks let none of the fs_write ops the model allows through (refused: fs_write 25) while it let 107 ops of other kinds through"
	for _, r := range builtAndLoaded(t, sum) {
		if text := render(t, r, reports.Text); !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	for _, tc := range []struct {
		name   string
		writes reports.KindCounts
		passed int64
	}{{"19 refused", reports.KindCounts{Stricter: 19}, 107}, {"one let through", reports.KindCounts{Stricter: 25, AllowedPassed: 1}, 107}, {"nothing let through", reports.KindCounts{Stricter: 25}, 0}} {
		sum.ByKind["fs_write"], sum.AllowedPassed = tc.writes, new(tc.passed)
		if tc.passed == 0 {
			sum.ByKind["fs_read"] = reports.KindCounts{}
		}
		if w := sum.KindNothingPassedWarning(); w != "" {
			t.Errorf("%s: warning %q, want none", tc.name, w)
		}
	}
}

// TestNoAllowListInReport: a sandbox that let through more than half of
// the ops the model refuses for the grant, at least 20, is a warning of
// the report and a row of its summary table, through the JSON round trip,
// both split by the kinds that had such ops; 19, or half, is no warning.
func TestNoAllowListInReport(t *testing.T) {
	sum := campaign.Summarize(campaignResult(t, 1), "mcp:open")
	for _, tc := range []struct{ through, refused int64 }{{19, 19}, {20, 40}, {0, 500}} {
		sum.RefusedLetThrough, sum.RefusedOps = tc.through, tc.refused
		if w := sum.NoAllowListWarning(); w != "" {
			t.Errorf("%d of %d let through: warning %q, want none", tc.through, tc.refused, w)
		}
	}
	sum.RefusedLetThrough, sum.RefusedOps = 21, 40
	sum.ByKind = map[string]reports.KindCounts{"fs_read": {RefusedOps: 21, RefusedLetThrough: 21}, "fs_write": {RefusedOps: 19}, "net_fetch": {AllowedPassed: 3}}
	for _, r := range builtAndLoaded(t, sum) {
		text := render(t, r, reports.Text)
		for _, want := range []string{"WARNING: mcp:open let through 21 of the 40 ops the model refuses for the grant (fs_read 21 of 21; fs_write 0 of 19) (a path", "it keeps no allow-list of its own, or its profile does not give it the grant",
			"ops the model refuses let through", "21 of 40 (fs_read 21 of 21; fs_write 0 of 19)"} {
			if !strings.Contains(text, want) {
				t.Errorf("the report lacks %q:\n%s", want, text)
			}
		}
	}
}

// TestReproduceCarriesTheSandboxFlags: the report's reproduce line gives
// the flags that chose the sandbox's configuration (a profile), quoted,
// so that the line runs the same sandbox again.
func TestReproduceCarriesTheSandboxFlags(t *testing.T) {
	r := campaign.NewReport(campaignResult(t, 1), "mcp:node s.js")
	r.SUTFlags = []string{"--profile", "/my profiles/p.json"}
	// The adapter skipped 7 scenarios, which a command draws again; the
	// finding was not written to a file.
	r.Drawn = r.Checks + 7
	r.Findings = []reports.Finding{{Invariant: "confinement", Class: "benign", Check: 3, Step: 1}}
	var b bytes.Buffer
	if err := r.Write(&b, reports.Text); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("--checks %d --sut 'mcp:node s.js' --profile '/my profiles/p.json'", r.Drawn)
	lines := 0
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, "--sut") {
			lines++
			if !strings.Contains(line, want) {
				t.Errorf("a command line without %q: %s", want, line)
			}
		}
	}
	if lines != 2 {
		t.Errorf("%d command lines, want the reproduce line and the findings' run line:\n%s", lines, b.String())
	}
	// The directory named is the one run writes to under that profile.
	if dir := "sbxfuzz/findings/" + finding.DirName("mcp:node s.js --profile /my profiles/p.json"); !strings.Contains(b.String(), dir) {
		t.Errorf("the report does not name the findings' directory %s:\n%s", dir, b.String())
	}
}

// TestKindsNotApplicable: a result kind the door never asks for is not
// among those never reached, nor counted among those the campaign could
// reach; the others still are.
func TestKindsNotApplicable(t *testing.T) {
	r := reports.New(reports.Summary{SUT: "proxy:p"}, nil) // no checks: no kind reached
	before := len(r.UnreachedKinds)
	if !slices.Contains(r.UnreachedKinds, "tool_denied") {
		t.Fatalf("no checks, yet tool_denied reached: %v", r.UnreachedKinds)
	}
	r.MarkKindsNotApplicable(map[string]string{"tool_denied": "asked net_fetch only"})
	if slices.Contains(r.UnreachedKinds, "tool_denied") || len(r.UnreachedKinds) != before-1 {
		t.Errorf("unreached %v after tool_denied was declared n/a (%d before)", r.UnreachedKinds, before)
	}
	var b bytes.Buffer
	if err := r.Write(&b, reports.Text); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("0 of %d (1 n/a) result kinds reached", before-1); !strings.Contains(b.String(), want) {
		t.Errorf("the report does not say %q:\n%s", want, b.String())
	}
}

// TestGivenUpWarning: a campaign that gave up checks when it stopped
// says so, with what to change; an interrupted one, which gives up what
// runs by design, does not.
func TestGivenUpWarning(t *testing.T) {
	if w := (&reports.Summary{GivenUpChecks: 1}).GivenUpWarning(); !strings.Contains(w, "1 checks were still running when the campaign stopped") {
		t.Errorf("given up 1: %q", w)
	}
	if w := (&reports.Summary{GivenUpChecks: 1, Interrupted: true}).GivenUpWarning(); w != "" {
		t.Errorf("interrupted: %q, want none", w)
	}
	if w := (&reports.Summary{}).GivenUpWarning(); w != "" {
		t.Errorf("none given up: %q, want none", w)
	}
}

// TestWarningsInJSON: the lines a run says loudly about its sandbox are
// in its JSON too, for a user who reads only that.
func TestWarningsInJSON(t *testing.T) {
	sum := campaign.Summarize(campaignResult(t, 1), "proxy:denyall")
	sum.Stricter = map[string]int64{"refused-allowed": 27}
	sum.AllowedPassed = new(int64(0))
	for _, r := range builtAndLoaded(t, sum) {
		if text := render(t, r, reports.JSON); !strings.Contains(text, `"warnings": [`) || !strings.Contains(text, "let none of the 27 ops the model allows through") {
			t.Errorf("the JSON lacks the warning:\n%s", text)
		}
	}
}

// TestLandedClause: ops allowed where they land are said on the summary
// line, and nothing is said of none.
func TestLandedClause(t *testing.T) {
	sum := campaign.Summarize(campaignResult(t, 1), "mcp:bwrap")
	if c := sum.LandedClause(); c != "" {
		t.Errorf("no op landed, yet the clause %q", c)
	}
	sum.LandedOps = 3
	if c := sum.LandedClause(); !strings.Contains(c, "3 ops the model denies for their path allowed where the world's links lead them") {
		t.Errorf("clause %q", c)
	}
}
