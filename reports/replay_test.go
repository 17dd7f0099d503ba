package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/reports"
)

// handReplay is a replay with one step of each sort: met (a stricter
// one), unmet with a long op, and a violation, on a sandbox that skipped one step and held
// one expectation loosely.
func handReplay() *reports.Replay {
	return &reports.Replay{File: "x.sbx", SUT: "osroot", Skipped: []int{2}, NotHeld: []int{3},
		Steps: []reports.ReplayStep{
			{Step: 1, Line: 4, Op: "fs_read /work/a", Kind: "ok", Data: "hi", Result: "ok hi", OpsUsed: 1, Journal: []string{"read /work/a"}, Stricter: "other"},
			{Step: 3, Line: 6, Op: "fs_read /work/" + strings.Repeat("d", 60), Kind: "fs_read_denied", Result: "fs_read_denied", Hard: true,
				OpsUsed: 2, WallUsed: 1, Unmet: "got fs_read_denied, want ok"},
		},
		Violations: []reports.Violation{{Invariant: "confinement", Step: 3, Detail: "it read outside"}, {Invariant: "halt-latched", Detail: "whole run"}},
		Stricter:   map[string]int64{"other": 1, "dangling-write": 2},
		Asks:       "fs ops of absolute paths",
	}
}

// TestWriteReplayText: the step table, each cell clipped to its width,
// then the whole journal of a step a finding names where the table clipped
// it, the unmet expectations, the violations, the skipped and loosely held
// steps, and the verdict.
func TestWriteReplayText(t *testing.T) {
	var b bytes.Buffer
	r := handReplay()
	long := []string{"resolve api.internal -> 151.101.1.69", "resolve api.internal -> 151.101.1.69", "fetch api.internal 151.101.1.69 /big"}
	r.Steps[1].Journal = long
	if err := reports.WriteReplay(&b, reports.Text, r); err != nil {
		t.Fatal(err)
	}
	want := "x.sbx\n" +
		"STEP  OP                                                RESULT          HARD  OPS  WALL  OUTPUT  JOURNAL\n" +
		"1     fs_read /work/a                                   ok hi           no    1    0     0       read /work/a  refused by the sandbox (stricter: other): the model's answer stands in, the journal what the sandbox did and what the harness did as the model's\n" +
		"3     fs_read /work/" + strings.Repeat("d", 33) + "…  fs_read_denied  yes   2    1     0       " + strings.Join(long, "; ")[:79] + "…  ✗ got fs_read_denied, want ok\n" +
		"x.sbx:6: step 3 journal: " + strings.Join(long, "; ") + "\n" +
		"x.sbx:6: step 3: fs_read /work/" + strings.Repeat("d", 60) + ": got fs_read_denied, want ok\n" +
		"x.sbx: confinement: step 3: it read outside\n" +
		"x.sbx: halt-latched: whole run\n" +
		"x.sbx: step 2 skipped: osroot cannot express it (not run, not judged): it is asked fs ops of absolute paths\n" +
		"x.sbx: expectation of step 3 not held: on what osroot can be asked, SPEC §5 gives another result\n" +
		"x.sbx: osroot refused 3 ops the model allows (stricter, SPEC §14: not judged; the table shows the model's answer for them, marked): dangling-write 2, other 1\n" +
		"x.sbx: 2 steps (1 skipped), FAIL: 1 unmet expectations, 2 findings\n\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// TestLongJournalBounded: a step's journal written in full below the
// table stops after its first entries, saying how many more there are.
func TestLongJournalBounded(t *testing.T) {
	var b bytes.Buffer
	r := handReplay()
	var many []string
	for i := range 1000 {
		many = append(many, fmt.Sprintf("resolve a%d.test -> 203.0.113.1", i))
	}
	r.Steps[1].Journal = many
	if err := reports.WriteReplay(&b, reports.Text, r); err != nil {
		t.Fatal(err)
	}
	want := "x.sbx:6: step 3 journal: " + strings.Join(many[:32], "; ") + "; … and 968 more entries (--format json holds them all)\n"
	if !strings.Contains(b.String(), want) || len(b.String()) > 8000 {
		t.Errorf("%d bytes written, want the journal line %q", b.Len(), want)
	}
}

// TestStricterNotRecurred: a stricter example whose replay counted no op
// under the reason it was written for says that the refusal did not
// recur, in text and JSON; one that counted one, or a file written for no
// reason, says nothing of it.
func TestStricterNotRecurred(t *testing.T) {
	const note = "x.sbx: written by a run as an example of ops stricter than the model (write-through-link), but mcp:x refused none of them here"
	for _, tc := range []struct {
		written  string
		stricter map[string]int64
		want     bool
	}{
		{"write-through-link", nil, true},
		{"write-through-link", map[string]int64{"other": 1}, true},
		{"write-through-link", map[string]int64{"write-through-link": 1}, false},
		{"", nil, false},
	} {
		r := &reports.Replay{File: "x.sbx", SUT: "mcp:x", Steps: []reports.ReplayStep{{Step: 1, Op: "fs_write /a/ln x", Result: "ok"}},
			Stricter: tc.stricter, WrittenStricter: tc.written}
		var text, js bytes.Buffer
		if err := reports.WriteReplay(&text, reports.Text, r); err != nil {
			t.Fatal(err)
		}
		if err := reports.WriteReplay(&js, reports.JSON, r); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(text.String(), note); got != tc.want {
			t.Errorf("written %q, counted %v: the note in the text %v, want %v\n%s", tc.written, tc.stricter, got, tc.want, text.String())
		}
		if got := strings.Contains(js.String(), `"stricter_not_recurred": "write-through-link"`); got != tc.want {
			t.Errorf("written %q, counted %v: stricter_not_recurred in the JSON %v, want %v\n%s", tc.written, tc.stricter, got, tc.want, js.String())
		}
	}
}

// TestViolatedAgain: a step that violates an invariant an earlier step
// violated first is marked in the table, and a line after the violations
// lists such steps by invariant; the first violation's step is not marked
// again, and JSON names every step's.
func TestViolatedAgain(t *testing.T) {
	r := &reports.Replay{File: "a.sbx", SUT: "mcp:x",
		Steps: []reports.ReplayStep{
			{Step: 1, Op: "fs_read /workshop/a", Result: "ok s", Violated: []string{"confinement"}},
			{Step: 2, Op: "fs_read /work/b", Result: "ok t"},
			{Step: 3, Op: "fs_read /workshop/c", Result: "ok u", Violated: []string{"confinement", "verdict-matches-model"}},
		},
		Violations: []reports.Violation{{Invariant: "confinement", Step: 1, Detail: "it read outside"}, {Invariant: "verdict-matches-model", Step: 3, Detail: "ok, not denied"}},
	}
	var b bytes.Buffer
	if err := reports.WriteReplay(&b, reports.Text, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 8 || strings.Contains(lines[2], "✗") || !strings.HasSuffix(lines[4], "  ✗ violates confinement again") ||
		lines[7] != "a.sbx: confinement: violated again at step 3, after step 1 (marked in the table)" {
		t.Errorf("text:\n%s", b.String())
	}
	b.Reset()
	if err := reports.WriteReplay(&b, reports.JSON, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Steps []struct {
			Violated []string `json:"violated"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Steps) != 3 || !cmp.Equal(doc.Steps[2].Violated, []string{"confinement", "verdict-matches-model"}) || doc.Steps[1].Violated != nil {
		t.Errorf("JSON (%v):\n%s", err, b.String())
	}
}

// TestWriteReplayJSON: the steps with their journal, the journal of the
// whole run, the violations, the unmet expectations with their lines, and
// the skipped steps; a sandbox that can express nothing passes.
func TestWriteReplayJSON(t *testing.T) {
	var b bytes.Buffer
	if err := reports.WriteReplay(&b, reports.JSON, handReplay()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OK    bool `json:"ok"`
		Steps []struct {
			Step     int      `json:"step"`
			Journal  []string `json:"journal"`
			Stricter string   `json:"stricter"`
		} `json:"steps"`
		Journal    []string         `json:"journal"`
		Violations []map[string]any `json:"violations"`
		Unmet      []map[string]any `json:"unmet"`
		Skipped    []int            `json:"skipped"`
		NotHeld    []int            `json:"expectations_not_held"`
		Stricter   map[string]int64 `json:"stricter"`
		Asks       string           `json:"asks"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OK || len(doc.Steps) != 2 || doc.Steps[1].Step != 3 || doc.Steps[1].Journal == nil || doc.Steps[0].Stricter != "other" || doc.Steps[1].Stricter != "" || !cmp.Equal(doc.Journal, []string{"read /work/a"}) ||
		len(doc.Violations) != 2 || len(doc.Unmet) != 1 || doc.Unmet[0]["line"] != 6.0 || !cmp.Equal(doc.Skipped, []int{2}) || !cmp.Equal(doc.NotHeld, []int{3}) || doc.Asks != "fs ops of absolute paths" ||
		!cmp.Equal(doc.Stricter, map[string]int64{"other": 1, "dangling-write": 2}) {
		t.Errorf("JSON:\n%s", b.String())
	}
	b.Reset()
	hung := &reports.Replay{File: "h.sbx", SUT: "osroot", Steps: []reports.ReplayStep{{Step: 1, Op: "fs_read /a", Result: "ok"}},
		Violations: []reports.Violation{{Invariant: "total", Step: 1, Detail: "fs_read /a did not return within 2s (a hang)", Hang: true}}}
	if err := reports.WriteReplay(&b, reports.Text, hung); err != nil || !strings.Contains(b.String(), "h.sbx: a timeout may be a loaded machine's") {
		t.Errorf("a hang: %v\n%s", err, b.String())
	}
	b.Reset()
	nothing := &reports.Replay{File: "y.sbx", SUT: "osroot", Skipped: []int{1, 2}, NotRun: true, Asks: "fs ops"}
	if err := reports.WriteReplay(&b, reports.Text, nothing); err != nil || b.String() != "y.sbx\ny.sbx: skipped: osroot can express none of its 2 steps (not run, not judged): it is asked fs ops\n\n" {
		t.Errorf("nothing to run: %v\n%s", err, b.String())
	}
	b.Reset()
	nothing.WhyNotRun = `"/work" is a file and the parent of "/work/a"`
	if err := reports.WriteReplay(&b, reports.Text, nothing); err != nil || b.String() != "y.sbx\ny.sbx: skipped: osroot can express none of its 2 steps (not run, not judged): \"/work\" is a file and the parent of \"/work/a\"; it is asked fs ops\n\n" {
		t.Errorf("nothing to run, and why: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := reports.WriteReplay(&b, reports.JSON, nothing); err != nil || !strings.Contains(b.String(), `"why_not_run": "\"/work\" is a file and the parent of \"/work/a\""`) {
		t.Errorf("nothing to run, and why, in JSON: %v\n%s", err, b.String())
	}
}

// TestWriteReplayFormats: a replay has no Markdown form, and says so
// rather than writing one.
func TestWriteReplayFormats(t *testing.T) {
	var b bytes.Buffer
	err := reports.WriteReplay(&b, reports.Markdown, handReplay())
	if err == nil || !strings.Contains(err.Error(), `not "md"`) || b.Len() != 0 {
		t.Errorf("Markdown: %v, wrote %q", err, b.String())
	}
}

// TestAnotherHostMark: a fetch counted as another host fetched instead of
// the op's is marked so, not as a refusal, which it was not.
func TestAnotherHostMark(t *testing.T) {
	var b bytes.Buffer
	r := &reports.Replay{File: "z.sbx", SUT: "mcp:x", Steps: []reports.ReplayStep{
		{Step: 1, Op: "net_fetch 0x /", Result: "not_found", Stricter: "another-host"},
		{Step: 2, Op: "net_fetch a.test /", Result: "not_found", Stricter: "refused-allowed"},
	}}
	if err := reports.WriteReplay(&b, reports.Text, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 4 || !strings.Contains(lines[2], "another host fetched instead of the op's (stricter: another-host)") || strings.Contains(lines[2], "refused by the sandbox") ||
		!strings.Contains(lines[3], "refused by the sandbox (stricter: refused-allowed)") {
		t.Errorf("marks:\n%s", b.String())
	}
}

// TestBareMark: a fetch whose journaled fetch is a connection that sent
// no request says so beside whatever else marks it, and in JSON.
func TestBareMark(t *testing.T) {
	var b bytes.Buffer
	r := &reports.Replay{File: "z.sbx", SUT: "mcp:x", Steps: []reports.ReplayStep{
		{Step: 1, Op: "net_fetch a.test /", Result: "egress_denied", Journal: []string{"fetch a.test 203.0.113.1 /"}, Bare: true},
		{Step: 2, Op: "net_fetch b.test /", Result: "egress_denied"},
	}}
	if err := reports.WriteReplay(&b, reports.Text, r); err != nil {
		t.Fatal(err)
	}
	const mark = "a connection that sent no request (a TLS hello, a browser's preconnect), journaled as the op's fetch (SPEC §14)"
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 4 || !strings.Contains(lines[2], mark) || strings.Contains(lines[3], mark) {
		t.Errorf("marks:\n%s", b.String())
	}
	b.Reset()
	if err := reports.WriteReplay(&b, reports.JSON, r); err != nil || !strings.Contains(b.String(), `"bare": true`) || strings.Count(b.String(), `"bare"`) != 1 {
		t.Errorf("JSON %v:\n%s", err, b.String())
	}
}

// TestKeptMark: a fetch from a DNS answer kept from an earlier op says
// so, and so does one let through on lookups off the model's dns line,
// each in JSON too.
func TestKeptMark(t *testing.T) {
	var b bytes.Buffer
	r := &reports.Replay{File: "z.sbx", SUT: "proxy:x", Steps: []reports.ReplayStep{
		{Step: 1, Op: "net_fetch a.test /", Result: "ok", Journal: []string{"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /"}},
		{Step: 2, Op: "net_fetch a.test /", Result: "ok", Journal: []string{"resolve a.test -> 10.0.0.1", "fetch a.test 203.0.113.1 /"}, Kept: true},
		{Step: 3, Op: "net_fetch a.test /", Result: "egress_internal", Journal: []string{"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /"}, LineMoved: true},
	}}
	if err := reports.WriteReplay(&b, reports.Text, r); err != nil {
		t.Fatal(err)
	}
	const mark = "connected with no lookup of the name in this op, to an answer the sandbox kept from an earlier one (a DNS cache)"
	const moved = "the model's answer: the sandbox let it through on lookups of its own that all answered a public address"
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 5 || strings.Contains(lines[2], mark) || !strings.Contains(lines[3], mark) || !strings.Contains(lines[4], moved) || strings.Contains(lines[3], moved) {
		t.Errorf("marks:\n%s", b.String())
	}
	b.Reset()
	if err := reports.WriteReplay(&b, reports.JSON, r); err != nil || strings.Count(b.String(), `"kept": true`) != 1 || strings.Count(b.String(), `"line_moved": true`) != 1 {
		t.Errorf("JSON %v:\n%s", err, b.String())
	}
}

// TestReplayTextKeepsSandboxWordsInert: a sandbox's own words reach a
// violation's detail (the tail of its stderr, an error object's message)
// and a step's cells: in the text, each stays on its line, and none of
// its control bytes reaches the terminal (an escape that clears the
// screen or sets the window's title).
func TestReplayTextKeepsSandboxWordsInert(t *testing.T) {
	words := "\x1b[2J\x1b]0;PWNED\x07 boom\nx.sbx: 1 steps, ok\r"
	r := &reports.Replay{File: "x.sbx", SUT: "exec:evil",
		Steps: []reports.ReplayStep{{Step: 1, Line: 3, Op: "fs_read /a", Kind: "ok", Result: "ok", OpsUsed: 1,
			Unmet: "the op gave no result: " + words, Cleaned: words}},
		Violations: []reports.Violation{{Invariant: "total", Step: 1, Detail: "fs_read /a failed: its stderr ends: " + words}},
	}
	var b bytes.Buffer
	if err := reports.WriteReplay(&b, reports.Text, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, c := range []byte(out) {
		if c < ' ' && c != '\n' || c == 0x7f {
			t.Fatalf("byte %#x at %d of the text:\n%q", c, i, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if l == "x.sbx: 1 steps, ok" {
			t.Errorf("a sandbox's words made a verdict line of their own:\n%s", out)
		}
	}
}
