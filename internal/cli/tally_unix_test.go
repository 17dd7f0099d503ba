//go:build unix

package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestRunSummarizesSkippedLines: the stdout lines an MCP server wrote
// that were not JSON-RPC reach the summary line, as a clause, and the
// JSON summary, as skipped_stdout_lines, with the same count.
func TestRunSummarizesSkippedLines(t *testing.T) {
	// Seed 6's first checks draw no finding of the fake server's: one
	// would be minimized, for a minute on a busy machine.
	_, out, errs := run(t, "run", "--seed", "6", "--checks", "3", "--workers", "1", "--format", "json",
		"--sut", fakeMCP(t, "logs"), "--tree-dir", t.TempDir(), "--out", t.TempDir())
	var sum struct {
		Skipped int64 `json:"skipped_stdout_lines"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v\nstderr: %s", err, errs)
	}
	m := regexp.MustCompile(`; (\d+) non-JSON stdout lines skipped`).FindStringSubmatch(errs)
	if sum.Skipped == 0 || m == nil || m[1] != jsonNumber(sum.Skipped) {
		t.Errorf("skipped_stdout_lines %d, summary line %q: want the same count, not 0, in both", sum.Skipped, errs)
	}
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestReplayCountsStricter: a replay on a sandbox that refuses what the
// model allows shows those steps with the model's answer, each marked
// with its reason, and says, after the table, how many it refused, by
// reason, in text and in JSON; a refusal the model gives too is no mark.
func TestReplayCountsStricter(t *testing.T) {
	sut := fakeMCP(t, "refuseall")
	sbx := writeFile(t, t.TempDir(), "s.sbx", "grant fs_read /work/\nfile /work/a x\nfile /etc/x y\nfs_read /etc/x => fs_read_denied\nfs_read /work/a => ok x\nfs_read /work/a => ok x\n")
	_, out, errs := run(t, "replay", "--sut", sut, "--tree-dir", t.TempDir(), sbx)
	if want := "refused 2 ops the model allows (stricter, SPEC §14: not judged; the table shows the model's answer for them, marked): other 2"; !strings.Contains(out, want) {
		t.Errorf("replay says:\n%s%s\nwant %q", out, errs, want)
	}
	const mark = "refused by the sandbox (stricter: other): the model's answer stands in, the journal what the sandbox did and what the harness did as the model's"
	marked := markedSteps(out, mark)
	if !slices.Equal(marked, []string{"2", "3"}) {
		t.Errorf("steps marked %q, want 2 and 3:\n%s", marked, out)
	}
	_, out, _ = run(t, "replay", "--sut", sut, "--tree-dir", t.TempDir(), "--format", "json", sbx)
	var doc struct {
		Stricter map[string]int64 `json:"stricter"`
		Steps    []struct {
			Stricter string `json:"stricter"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Stricter["other"] != 2 || len(doc.Steps) != 3 ||
		doc.Steps[0].Stricter != "" || doc.Steps[1].Stricter != "other" || doc.Steps[2].Stricter != "other" {
		t.Errorf("JSON stricter %v, steps %+v (%v):\n%s", doc.Stricter, doc.Steps, err, out)
	}
}

// TestReplayOfAStricterExample: a stricter example a run wrote, replayed
// on a sandbox that refuses its op again, counts it; replayed on the
// sandbox it was written for, which does not refuse it this time, it says
// the refusal did not recur; on another sandbox, it says nothing of it.
func TestReplayOfAStricterExample(t *testing.T) {
	dir := t.TempDir()
	sc, err := scenario.Parse("s.sbx", []byte("grant fs_read /work/\nfile /work/a x\nfs_read /work/a\n"))
	if err != nil {
		t.Fatal(err)
	}
	sbx, err := (&finding.Pipeline{SUT: "mcp:x"}).WriteStricter(dir, "other", "seed 1, check 2", 1, sc)
	if err != nil {
		t.Fatal(err)
	}
	const note = "written by a run as an example of ops stricter than the model (other), but "
	_, out, errs := run(t, "replay", "--sut", fakeMCP(t, "refuseall"), "--tree-dir", t.TempDir(), sbx)
	if !strings.Contains(out, "refused 1 op the model allows") || strings.Contains(out, note) {
		t.Errorf("replayed where the refusal recurs:\n%s%s\nwant it counted, and no note", out, errs)
	}
	_, out, errs = run(t, "replay", "--sut", "reference", sbx)
	if strings.Contains(out, note) {
		t.Errorf("replayed on another sandbox than it was written for:\n%s%s\nwant no note", out, errs)
	}
	own, err := (&finding.Pipeline{SUT: "reference"}).WriteStricter(t.TempDir(), "other", "seed 1, check 2", 1, sc)
	if err != nil {
		t.Fatal(err)
	}
	_, out, errs = run(t, "replay", "--sut", "reference", own)
	if !strings.Contains(out, note+"reference refused none of them here") {
		t.Errorf("replayed where it does not recur:\n%s%s\nwant %q", out, errs, note)
	}
}

// TestReplayShowsTheCleanedAnswer: with its profile's "dotdot", an MCP
// server that cleans ".." out of a path reads the file the clean path
// names; the step shows the model's refusal, and its mark says what the
// server answered, so that the refusal is not read as the server's, in
// text and in JSON. A step without ".." has no such mark.
func TestReplayShowsTheCleanedAnswer(t *testing.T) {
	dir := t.TempDir()
	profile := writeFile(t, dir, "dotdot.json", `{"name": "fake-dotdot", "read": {"tool": "read_file", "path": "path"},
		"write": {"tool": "write_file", "path": "path", "content": "content"},
		"denied": ["Access denied"], "not_found": ["ENOENT"], "dotdot": true}`)
	sbx := writeFile(t, dir, "s.sbx", "grant fs_read /work/\ngrant fs_write /work/\nfile /work/f x\nfile /etc/secret \"top secret\"\nlink /work/d /etc\n\nfs_read /work/f\nfs_read /work/d/../work/f\n")
	args := []string{"replay", "--sut", fakeMCP(t, "cleancheck"), "--profile", profile, "--tree-dir", t.TempDir(), sbx}
	secondStepMarked(t, args, `the model's answer stands in for the server's (allowed, with `, "cleaned", "allowed, with ")
}

// TestReplayShowsTheSandboxsWords: a step the sandbox refused is marked
// with its own words, which the kind it is read as does not say (a real
// sandbox says it denied, not why: a denial of a path with ".." reads
// path_traversal); JSON: said. Words the profile does not tell are
// answered as a denial, and marked so; JSON: unknown_refusal.
func TestReplayShowsTheSandboxsWords(t *testing.T) {
	for _, tc := range []struct{ denied, mark, field string }{
		{"Access denied", `the sandbox said "Access denied`, "said"},
		{"never said", `refused by the sandbox in words its profile does not tell ("Access denied`, "unknown_refusal"},
	} {
		dir := t.TempDir()
		profile := writeFile(t, dir, "p.json", `{"name": "fake", "read": {"tool": "read_file", "path": "path"},
			"write": {"tool": "write_file", "path": "path", "content": "content"},
			"denied": ["`+tc.denied+`"], "not_found": ["ENOENT"]}`)
		sbx := writeFile(t, dir, "s.sbx", "grant fs_read /work/\ngrant fs_write /work/\nfile /work/f x\nfile /etc/secret \"top secret\"\n\nfs_read /work/f\nfs_read /etc/secret\n")
		args := []string{"replay", "--sut", fakeMCP(t, "plain"), "--profile", profile, "--tree-dir", t.TempDir(), sbx}
		secondStepMarked(t, args, tc.mark, tc.field, "Access denied")
	}
}

// secondStepMarked runs the replay args of a scenario of two steps, and
// fails t unless it finds nothing and marks the second step alone with
// mark, and its JSON gives that step alone field, beginning with prefix.
func secondStepMarked(t *testing.T, args []string, mark, field, prefix string) {
	t.Helper()
	_, out, errs := run(t, args...)
	if marked := markedSteps(out, mark); !slices.Equal(marked, []string{"2"}) || !strings.Contains(out, "2 steps, ok") {
		t.Errorf("steps marked %q, want 2, and no finding:\n%s%s", marked, out, errs)
	}
	_, out, _ = run(t, append(args, "--format", "json")...)
	var doc struct {
		Steps []map[string]any `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Steps) != 2 {
		t.Fatalf("JSON %v:\n%s", err, out)
	}
	got, _ := doc.Steps[1][field].(string)
	if _, first := doc.Steps[0][field]; first || !strings.HasPrefix(got, prefix) {
		t.Errorf("JSON steps %v; want %s on the second alone, beginning %q", doc.Steps, field, prefix)
	}
}

// TestReplayMarksALandedOp: with its profile's "lands", a server that
// resolves links before its check allows a write outside its root that a
// link leads back into it; replay shows the model's refusal, marks the
// step, and finds nothing; JSON says landed. The read after it, in a tree
// that write made other than the model's, is marked as parted, not as
// after a stricter refusal.
func TestReplayMarksALandedOp(t *testing.T) {
	dir := t.TempDir()
	profile := writeFile(t, dir, "lands.json", `{"name": "fake-lands", "read": {"tool": "read_file", "path": "path"},
		"write": {"tool": "write_file", "path": "path", "content": "content"},
		"denied": ["Access denied"], "not_found": ["ENOENT"], "lands": true}`)
	sbx := writeFile(t, dir, "s.sbx", "grant fs_read /work/\ngrant fs_write /work/\nfile /work/out/x old\nlink /etc/ln-back /work/out/x\n\nfs_write /etc/ln-back y\nfs_read /work/out/x\n")
	args := []string{"replay", "--sut", fakeMCP(t, "plain"), "--profile", profile, "--tree-dir", t.TempDir(), sbx}
	st, out, errs := run(t, args...)
	const mark = "allowed by the sandbox where the world's links lead it, under a root (the profile's lands)"
	const parted = "after a write above that the sandbox allowed where the world's links lead it, its tree is not the model's"
	marked, after := markedSteps(out, mark), markedSteps(out, parted)
	if st != ExitOK || !slices.Equal(marked, []string{"1"}) || !slices.Equal(after, []string{"2"}) || strings.Contains(out, "stricter refusal") {
		t.Errorf("status %d, steps marked %q and parted %q: want 0, step 1 and step 2:\n%s%s", st, marked, after, out, errs)
	}
	_, out, _ = run(t, append(args, "--format", "json")...)
	var doc struct {
		Steps []struct {
			Landed, Parted, Modelled bool
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Steps) != 2 || !doc.Steps[0].Landed || doc.Steps[1].Landed ||
		doc.Steps[0].Parted || !doc.Steps[1].Parted || doc.Steps[1].Modelled {
		t.Errorf("JSON steps %+v (%v):\n%s", doc.Steps, err, out)
	}
	// A server that refuses the op agrees with the model: nothing landed.
	args[2] = fakeMCP(t, "refuseall")
	if _, out, errs := run(t, args...); strings.Contains(out, mark) {
		t.Errorf("a refusal marked as landed:\n%s%s", out, errs)
	}
}

// TestReplayMarksTheModelsJournal: a proxy that refuses an internal host
// without looking it up is journaled as the model looks it up, and replay
// marks that step so that the lookup is not read as the proxy's; a host
// the model refuses by the grant alone, journaling nothing, is no mark.
func TestReplayMarksTheModelsJournal(t *testing.T) {
	proxy := pythonInNamespace(t, "denyproxy.py")
	dir := t.TempDir()
	profile := writeFile(t, dir, "deny.json", `{"name": "deny", "command": ["python3"], "args": ["{{listen}}"]}`)
	sbx := writeFile(t, dir, "s.sbx", "grant net 2130706433 a.test\n\nnet_fetch 2130706433 / => egress_internal\nnet_fetch b.test / => egress_denied\n")
	_, out, errs := run(t, "replay", "--sut", "proxy:"+proxy, "--profile", profile, sbx)
	const mark = "refused by the sandbox, which looked nothing up: the model's journal shown"
	marked := markedSteps(out, mark)
	if !slices.Equal(marked, []string{"1"}) || !strings.Contains(out, "resolve 2130706433 -> 127.0.0.1") {
		t.Errorf("steps marked %q, want 1, its journal the model's resolve:\n%s%s", marked, out, errs)
	}
}

// TestReplayOfACachingFetchServer: a fetch server that answers a URL it
// fetched before from a cache of its own, shared by a scenario's run and
// its replay, answered the replay with no request, read as a refusal
// where the run had fetched: replay-deterministic, for the harness's
// sharing of one server. Replay judges that file again on a server for
// each run, and says so; the fetch of an internal address is still found.
func TestReplayOfACachingFetchServer(t *testing.T) {
	server := pythonInNamespace(t, "cachefetch.py")
	dir := t.TempDir()
	profile := writeFile(t, dir, "cache.json", `{"name": "cachefetch", "command": ["python3"], "mcp": {"tool": "fetch"}}`)
	sbx := writeFile(t, dir, "s.sbx", "grant net b.test\ndns b.test 127.0.0.1\nroute b.test /s hello\n\nnet_fetch b.test /s\n")
	st, out, errs := run(t, "replay", "--sut", "mcp:"+server, "--profile", profile, sbx)
	if st != ExitFinding || !strings.Contains(out, "no-internal-egress") || strings.Contains(out, "replay-deterministic") {
		t.Errorf("status %d; want 1, no-internal-egress and no replay-deterministic:\n%s%s", st, out, errs)
	}
	if !strings.Contains(errs, "replayed again on a process of its own") {
		t.Errorf("stderr %q: want a note that the file was replayed again", errs)
	}
}

// pythonInNamespace is the absolute path of the Python script testdata/name,
// a proxy or a server the door runs in a network namespace; it skips the
// test where namespaces or python3 are missing.
func pythonInNamespace(t *testing.T, name string) string {
	t.Helper()
	if err := netns.Supported(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH: testdata/" + name + " is a Python script")
	}
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// markedSteps is the step numbers of the lines of a replay's table, out,
// that hold mark.
func markedSteps(out, mark string) []string {
	var marked []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, mark) {
			marked = append(marked, strings.Fields(line)[0])
		}
	}
	return marked
}
