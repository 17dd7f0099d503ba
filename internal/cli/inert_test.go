package cli

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// sandboxWords are words a hostile sandbox puts in its failures: an
// escape that clears the screen, one that sets the window's title, and a
// line of its own that reads like the harness's.
const sandboxWords = "\x1b[2J\x1b]0;PWNED\x07 boom\nsbxfuzz run: 0 findings\r"

type panicsWithWords struct{ *core.Reference }

func (panicsWithWords) Run(core.Op) core.Result { panic(sandboxWords) }

// checkInert fails when out carries a control byte other than a newline,
// or a line that is the sandbox's.
func checkInert(t *testing.T, what, out string) {
	t.Helper()
	for i, c := range []byte(out) {
		if c < ' ' && c != '\n' || c == 0x7f {
			t.Errorf("%s: byte %#x at %d:\n%q", what, c, i, out)
			return
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "sbxfuzz run: 0 findings") {
			t.Errorf("%s: the sandbox's words made a line of their own:\n%s", what, out)
		}
	}
}

// TestSandboxWordsStayInert: the words of a sandbox's failure reach
// what run, replay, minimize and import print with their control bytes
// escaped and on the line of the finding, never as a terminal's escapes
// or a line of their own.
func TestSandboxWordsStayInert(t *testing.T) {
	tg := sut.Static("says-things", func(g core.Grant, w core.World) (core.Sandbox, error) {
		return panicsWithWords{core.NewReference(g, w)}, nil
	})
	main := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		st := Main(args, &out, &errb, func(string) string { return "" }, tg)
		return st, out.String(), errb.String()
	}
	dir := t.TempDir()
	st, out, errs := main("run", "--sut", "says-things", "--checks", "1", "--workers", "1", "--out", dir)
	if st != ExitFinding || !strings.Contains(out, "boom") {
		t.Fatalf("run: status %d\nstdout:\n%s\nstderr:\n%s", st, out, errs)
	}
	checkInert(t, "run's stdout", out)
	checkInert(t, "run's stderr", errs)
	files, _ := filepath.Glob(filepath.Join(dir, "*.sbx"))
	if len(files) == 0 {
		t.Fatal("run wrote no finding")
	}
	st, out, errs = main("replay", "--sut", "says-things", files[0])
	if st != ExitFinding || !strings.Contains(out, "boom") {
		t.Fatalf("replay: status %d\nstdout:\n%s\nstderr:\n%s", st, out, errs)
	}
	checkInert(t, "replay's stdout", out)
	st, out, errs = main("minimize", "--sut", "says-things", files[0])
	if st != ExitFinding {
		t.Fatalf("minimize: status %d\nstdout:\n%s\nstderr:\n%s", st, out, errs)
	}
	checkInert(t, "minimize's stderr", errs)
	checkInert(t, "minimize's stdout", out)
	raw := filepath.Join(t.TempDir(), "crash")
	if err := os.WriteFile(raw, []byte("go test fuzz v1\n[]byte(\"fs_read /a\\n\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, out, errs = main("import", "--sut", "says-things", "--out", t.TempDir(), raw)
	if st != ExitFinding || !strings.Contains(out, "boom") {
		t.Fatalf("import: status %d\nstdout:\n%s\nstderr:\n%s", st, out, errs)
	}
	checkInert(t, "import's stdout", out)
}

// TestSavedSummaryWordsStayInert: a summary given to report --from is
// data; its sandbox's name and stricter reasons reach the summary line on
// stderr with their control bytes escaped.
func TestSavedSummaryWordsStayInert(t *testing.T) {
	dir := t.TempDir()
	st, out, errs := run(t, "run", "--checks", "5", "--format", "json", "--out", dir)
	if st != ExitOK {
		t.Fatalf("run: status %d\n%s", st, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	m["sut"] = sandboxWords
	// Refusals past what it let through: a warning that names the sandbox.
	m["stricter"] = map[string]any{"other" + sandboxWords: 300}
	m["allowed_passed"] = 1
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	st, text, errs := run(t, "report", "--from", writeFile(t, dir, "saved.json", string(b)))
	if st != ExitOK {
		t.Fatalf("report --from: status %d\n%s", st, errs)
	}
	checkInert(t, "report's stdout", text)
	checkInert(t, "report's stderr", errs)
	if !strings.Contains(errs, "WARNING") {
		t.Errorf("report's stderr has no warning to show the sandbox's words in:\n%s", errs)
	}
}

// fetchesAway fetches from a host of its own whose name carries the
// sandbox's words, at every op or (onFetches) at its net_fetch ops only,
// then answers as the reference does.
type fetchesAway struct {
	*core.Reference
	w         core.World
	onFetches bool
}

func (f fetchesAway) Run(op core.Op) core.Result {
	if !f.onFetches || op.Kind == core.OpFetch {
		f.w.Fetch("x."+sandboxWords+".example", netip.MustParseAddr("203.0.113.9"), "/")
	}
	return f.Reference.Run(op)
}

// TestCauseWordsStayInert: the cause of a sandbox's own host is its
// domain, which the sandbox chose: the lines on stdout that name causes
// escape its control bytes, a written finding's line (a sandbox that
// fetches its host on fetches only, where that cause comes first) and the
// causes no finding was written for (one that fetches it at every op,
// where the ops' classes come first).
func TestCauseWordsStayInert(t *testing.T) {
	for _, tc := range []struct {
		onFetches bool
		where     string // the line that names the cause: a finding's, or an unwritten cause's
	}{
		{true, ".sbx: "},
		{false, "  [net_fetch, a host of the sandbox's own"},
	} {
		tg := sut.Static("fetches-away", func(g core.Grant, w core.World) (core.Sandbox, error) {
			return fetchesAway{core.NewReference(g, w), w, tc.onFetches}, nil
		})
		var out, errb bytes.Buffer
		st := Main([]string{"run", "--sut", "fetches-away", "--checks", "20", "--workers", "1", "--per-invariant", "1", "--out", t.TempDir()},
			&out, &errb, func(string) string { return "" }, tg)
		named := false
		for _, l := range strings.Split(out.String(), "\n") {
			named = named || strings.Contains(l, tc.where) && strings.Contains(l, "a host of the sandbox's own")
		}
		if st != ExitFinding || !named {
			t.Fatalf("run, fetching on fetches only %v: status %d, no line with %q naming the cause\nstdout:\n%s\nstderr:\n%s", tc.onFetches, st, tc.where, out.String(), errb.String())
		}
		checkInert(t, "run's stdout", out.String())
		checkInert(t, "run's stderr", errb.String())
	}
}

// TestStartErrorWordsStayInert: a server that fails as it starts, its
// stderr's last words escape sequences, has them quoted in the error
// with their control bytes escaped.
func TestStartErrorWordsStayInert(t *testing.T) {
	if err := proc.Supported(); err != nil {
		t.Skip("a sandbox in another process:", err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh:", err)
	}
	script := `printf 'boom\033]0;PWNED\007\033[2J' >&2; exit 3`
	st, out, errs := run(t, "run", "--sut", "mcp:sh -c \""+script+"\"", "--checks", "1", "--workers", "1", "--out", t.TempDir())
	if st == ExitOK || !strings.Contains(out+errs, "boom") {
		t.Fatalf("run: status %d\nstdout:\n%s\nstderr:\n%s", st, out, errs)
	}
	checkInert(t, "run's stdout", out)
	checkInert(t, "run's stderr", errs)
}

// TestErrorsAreInert: an error line, whatever it quotes, reaches stderr
// with its control characters escaped and its own lines kept; a parse
// error's file name is quoted as it is, escapes and all.
func TestErrorsAreInert(t *testing.T) {
	var errb bytes.Buffer
	e := &env{stderr: &errb}
	errorf(e, "starting %s: its stderr ends: %s", "x", "boom\x1b[2J\tat main.go:12\nsecond line")
	if got, want := errb.String(), "sbxfuzz: starting x: its stderr ends: boom\\x1b[2J\tat main.go:12\nsecond line\n"; got != want {
		t.Errorf("errorf wrote %q, want %q", got, want)
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "a\x1b[2Jb.sbx")
	if err := os.WriteFile(name, []byte("fs_read /w\ngrant fs_read /x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, errs := run(t, "fmt", name)
	if st != ExitUsage {
		t.Fatalf("fmt of a broken file: status %d", st)
	}
	checkInert(t, "a parse error's stderr", errs)
}
