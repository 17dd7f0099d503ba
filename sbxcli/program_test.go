package sbxcli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/sbxcli"
)

// leaky is a defect variant of the reference: it reads everything.
func leaky(g core.Grant, w core.World) (core.Sandbox, error) {
	wide := must.Grant(core.GrantSpec{FSRead: []string{"/"}, Budgets: g.Budgets()})
	return core.NewReference(wide, w), nil
}

// buildProgram builds testdata/mysbx, a program made with sbxcli, into
// dir/bin and returns its path.
func buildProgram(t *testing.T, dir string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the reproduce lines are run by a POSIX shell")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the program with:", err)
	}
	bin := filepath.Join(dir, "bin", "mysbx")
	build := exec.Command(gobin, "build", "-o", bin, "./testdata/mysbx")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/mysbx: %v\n%s", err, out)
	}
	return bin
}

// runShell runs line in sh with PATH set to path, in dir, and returns its
// exit status and output.
func runShell(t *testing.T, dir, path, line string) (int, string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path, "SBXFUZZ_OUT=")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("%s: %v", line, err)
	return 0, ""
}

// reproduceLine is the "reproduce:" line of the one finding file in dir.
func reproduceLine(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.sbx"))
	if len(files) != 1 {
		t.Fatalf("%d finding files in %s, want 1 (--stop-at-first)", len(files), dir)
	}
	text, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(text), "\n") {
		if cmd, ok := strings.CutPrefix(line, "# reproduce: "); ok {
			return cmd
		}
	}
	t.Fatalf("%s has no reproduce line:\n%s", files[0], text)
	return ""
}

// TestReproduceLinesRunAsPrinted: a program built with sbxcli names
// itself in its findings' reproduce lines — by its base name when PATH
// finds it, else by its path — and each line, run as printed by a shell,
// replays the finding: exit 1 on the defect variant.
func TestReproduceLinesRunAsPrinted(t *testing.T) {
	dir := t.TempDir()
	bin := buildProgram(t, dir)
	for _, c := range []struct {
		name, path, want string
	}{
		{"on PATH", filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"), "mysbx replay --sut leaky "},
		{"not on PATH", os.Getenv("PATH"), bin + " replay --sut leaky "},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			start := "mysbx"
			if !strings.HasPrefix(c.want, "mysbx") {
				start = bin
			}
			st, text := runShell(t, dir, c.path, start+" run --sut leaky --stop-at-first --checks 2000 --workers 1 --out "+out)
			if st != 1 {
				t.Fatalf("run: status %d, want 1\n%s", st, text)
			}
			line := reproduceLine(t, out)
			if !strings.HasPrefix(line, c.want) {
				t.Fatalf("reproduce line %q does not start with %q", line, c.want)
			}
			if st, text := runShell(t, t.TempDir(), c.path, line); st != 1 || !strings.Contains(text, "FAIL") {
				t.Errorf("%s: status %d, want 1 (the finding replayed)\n%s", line, st, text)
			}
			mine := strings.Replace(line, "--sut leaky", "--sut mine", 1)
			if st, text := runShell(t, t.TempDir(), c.path, mine); st != 0 {
				t.Errorf("%s: status %d, want 0 on the correct sandbox\n%s", mine, st, text)
			}
		})
	}
}

// TestCommandOption: the Command option's words start every reproduce
// line and every command of the help.
func TestCommandOption(t *testing.T) {
	out := t.TempDir()
	sandboxes := map[string]core.Factory{"leaky": leaky}
	cmd := sbxcli.Command("go run ./cmd/mysbx")
	var stderr bytes.Buffer
	st := sbxcli.Run([]string{"run", "--sut", "leaky", "--stop-at-first", "--checks", "2000", "--workers", "1", "--out", out}, io.Discard, &stderr, sandboxes, cmd)
	if st != 1 {
		t.Fatalf("run: status %d, want 1\n%s", st, stderr.String())
	}
	if line := reproduceLine(t, out); !strings.HasPrefix(line, "go run ./cmd/mysbx replay --sut leaky ") {
		t.Errorf("reproduce line %q does not name the program as the Command option does", line)
	}
	var help bytes.Buffer
	sbxcli.Run([]string{"help"}, &help, io.Discard, sandboxes, cmd)
	if !strings.Contains(help.String(), "usage: go run ./cmd/mysbx COMMAND") || !strings.Contains(help.String(), "'go run ./cmd/mysbx mutants'") || strings.Contains(help.String(), "'sbxfuzz ") {
		t.Errorf("help does not name the program as the Command option does:\n%s", help.String())
	}
	help.Reset()
	sbxcli.Run([]string{"run", "-h"}, &help, io.Discard, sandboxes, cmd)
	if !strings.HasPrefix(help.String(), "usage: go run ./cmd/mysbx run ") || strings.Contains(help.String(), "'sbxfuzz ") {
		t.Errorf("run -h does not name the program as the Command option does:\n%s", help.String())
	}
	stderr.Reset()
	sbxcli.Run([]string{"nope"}, io.Discard, &stderr, sandboxes, cmd)
	if !strings.Contains(stderr.String(), "'go run ./cmd/mysbx help'") {
		t.Errorf("an unknown command's error does not name the program: %q", stderr.String())
	}
	var report bytes.Buffer
	sbxcli.Run([]string{"report", "--sut", "leaky", "--checks", "20", "--format", "md"}, &report, io.Discard, sandboxes, cmd)
	if !strings.Contains(report.String(), "`go run ./cmd/mysbx report --seed 1 --checks 20 --sut leaky`") {
		t.Errorf("the report's reproduce line does not name the program:\n%s", report.String())
	}
}

// TestGradeOwnVariants: 'mutants --sut' grades the sandboxes a program
// registered: the defect variant is killed, the correct one survives
// (exit 1), in the order given.
func TestGradeOwnVariants(t *testing.T) {
	var stdout, stderr bytes.Buffer
	st := sbxcli.Run([]string{"mutants", "--sut", "leaky,mine", "--checks", "300", "--format", "json"}, &stdout, &stderr,
		map[string]core.Factory{"leaky": leaky, "mine": newSandbox})
	if st != 1 {
		t.Fatalf("status %d, want 1 (mine survives)\n%s", st, stderr.String())
	}
	var kills []struct {
		Mutant string `json:"mutant"`
		Killed bool   `json:"killed"`
		Checks int    `json:"checks"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &kills); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(kills) != 2 || kills[0].Mutant != "leaky" || !kills[0].Killed || kills[1].Mutant != "mine" || kills[1].Killed || kills[1].Checks != 300 {
		t.Errorf("kill table %+v, want leaky killed and mine surviving 300 checks", kills)
	}
}
