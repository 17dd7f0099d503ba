package cli

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzdecode"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzfile"
)

// runEnv runs the command line with an environment.
func runEnv(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := Main(args, &out, &errb, func(k string) string { return env[k] })
	return st, out.String(), errb.String()
}

// rawPrefixInput is a FuzzScenario input (text mode) that the raw-prefix
// mutant fails and the reference passes: a read of a /work prefix sibling
// under the grant /work.
var rawPrefixInput = fuzzdecode.TextSeed("test", []byte("grant fs_read /work\nfile /workshop/secret LEAK\nfile /work/a ok\n\nfs_read /work/a\nfs_read /workshop/secret\nfs_read /etc/passwd\n"))

// importedFile returns the one .sbx file in dir.
func importedFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.sbx"))
	if err != nil || len(files) != 1 {
		t.Fatalf("%s holds %v (%v), want one .sbx", dir, files, err)
	}
	return files[0]
}

// TestImportGoFuzzFile: a go test fuzz v1 crasher of FuzzScenario becomes a
// minimized .sbx named after its invariant, with a header naming its origin;
// replay confirms it on the mutant and passes it on the reference.
func TestImportGoFuzzFile(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	crasher := writeFile(t, dir, "0123456789abcdef", string(fuzzfile.EncodeGoFuzz(rawPrefixInput)))
	st, stdout, stderr := run(t, "import", "--sut", "mutant:raw-prefix", "--out", out, crasher)
	if st != ExitFinding {
		t.Fatalf("status %d, want 1\nstdout %s\nstderr %s", st, stdout, stderr)
	}
	p := importedFile(t, out)
	if !strings.HasPrefix(filepath.Base(p), "confinement-") {
		t.Errorf("imported as %s, want confinement-<hash>.sbx", p)
	}
	text, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# finding: confinement\n",
		"# sandbox: mutant:raw-prefix; imported from 0123456789abcdef (go test fuzz v1 input, ",
		"decoded in text mode); class of the violating op: ",
		"; expectations are the oracle model's results\n",
		"# reproduce: sbxfuzz replay --sut mutant:raw-prefix " + filepath.ToSlash(p) + "\n",
		"grant fs_read /work\n",
		"=> fs_read_denied",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the imported file lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), dir) {
		t.Errorf("the header names the crash file's directory %s, not its base name:\n%s", dir, text)
	}
	if strings.Contains(string(text), "/etc/passwd") || strings.Contains(string(text), "fs_read /work/a") {
		t.Errorf("not minimized:\n%s", text)
	}
	if st, out, _ := run(t, "replay", "--sut", "mutant:raw-prefix", p); st != ExitFinding {
		t.Errorf("replay on the mutant: status %d, want 1\n%s", st, out)
	}
	if st, out, _ := run(t, "replay", p); st != ExitOK {
		t.Errorf("replay on the reference: status %d, want 0\n%s", st, out)
	}
}

// TestImportLabelsTheMinimizedOp: a crasher whose failing fetch was drawn
// as a traversal, and whose path minimizing emptied, is labelled by its
// host (an IP literal's spelling), not by the path it no longer has. The
// input is an arena-mode one: only that mode draws ops by class.
func TestImportLabelsTheMinimizedOp(t *testing.T) {
	input, err := hex.DecodeString("6d100200aaeeac6cec235029") // a net_fetch of a zoned NAT64 literal with a climbing path, drawn as a traversal, and two other ops
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	crasher := writeFile(t, t.TempDir(), "6d100200aaeeac6c", string(fuzzfile.EncodeGoFuzz(input)))
	if st, stdout, stderr := run(t, "import", "--sut", "mutant:no-internal-check", "--out", out, crasher); st != ExitFinding {
		t.Fatalf("status %d, want 1\nstdout %s\nstderr %s", st, stdout, stderr)
	}
	text, err := os.ReadFile(importedFile(t, out))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `net_fetch 64:ff9b::ac10:0%eth0 ""`) || !strings.Contains(string(text), "; class of the violating op: ip-spelling\n") {
		t.Errorf("want the fetch minimized to an empty path and labelled ip-spelling:\n%s", text)
	}
}

// TestImportLibFuzzerFile: a libFuzzer crash file (go-118-fuzz-build's
// length-prefixed layout) of the same input gives the same finding; the
// sandbox defaults to $SBXFUZZ_SUT.
func TestImportLibFuzzerFile(t *testing.T) {
	dir, out1, out2 := t.TempDir(), t.TempDir(), t.TempDir()
	goFile := writeFile(t, dir, "go", string(fuzzfile.EncodeGoFuzz(rawPrefixInput)))
	libFile := writeFile(t, dir, "crash-0123", string(fuzzfile.EncodeLibFuzzer(rawPrefixInput)))
	env := map[string]string{"SBXFUZZ_SUT": "mutant:raw-prefix"}
	if st, _, stderr := runEnv(t, env, "import", "--out", out1, goFile); st != ExitFinding {
		t.Fatalf("go file: status %d\n%s", st, stderr)
	}
	st, _, stderr := runEnv(t, env, "import", "--out", out2, libFile)
	if st != ExitFinding {
		t.Fatalf("libFuzzer file: status %d\n%s", st, stderr)
	}
	a, b := importedFile(t, out1), importedFile(t, out2)
	if filepath.Base(a) != filepath.Base(b) {
		t.Errorf("the two layouts give %s and %s", filepath.Base(a), filepath.Base(b))
	}
	text, _ := os.ReadFile(b)
	if !strings.Contains(string(text), "(libFuzzer (go-118-fuzz-build) input") {
		t.Errorf("the header does not name the layout:\n%s", text)
	}
}

// TestImportNothingToImport: an input the sandbox passes exits 0 and says
// so, writing nothing (--out, checked before any work, is made but stays
// empty).
func TestImportNothingToImport(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "findings")
	f := writeFile(t, dir, "input", string(fuzzfile.EncodeGoFuzz(rawPrefixInput)))
	st, stdout, stderr := run(t, "import", "--out", out, f)
	if st != ExitOK || !strings.Contains(stderr, "reproduces nothing on reference") {
		t.Fatalf("status %d, want 0\nstdout %s\nstderr %s", st, stdout, stderr)
	}
	if entries, err := os.ReadDir(out); err != nil || len(entries) != 0 {
		t.Errorf("%s holds %d files (%v), want none", out, len(entries), err)
	}
}

// TestImportBadInput: files that hold no input, unknown layouts and
// sandboxes, and a missing FILE are usage errors.
func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad", "go test fuzz v1\nint(3)\n")
	short := writeFile(t, dir, "short", "abc")
	good := writeFile(t, dir, "good", string(fuzzfile.EncodeGoFuzz(rawPrefixInput)))
	out := t.TempDir() // --out is checked first, and made when missing: not in the source tree
	for _, tt := range []struct {
		args   []string
		want   string
		reason string
	}{
		{[]string{"import", "--out", out, bad}, "bad: not a fuzz input: line 2", "a go file whose argument is not a []byte"},
		{[]string{"import", "--out", out, short}, "short: not a fuzz input: 3 bytes", "too short for the libFuzzer layout"},
		{[]string{"import", "--out", out, filepath.Join(dir, "missing")}, "missing", "no such file"},
		{[]string{"import", "--out", dir, good, short}, "short: not a fuzz input", "bad input beats nothing found"},
		{[]string{"import", "--out", out, "--layout", "afl", good}, `--layout "afl"`, "an unknown layout"},
		{[]string{"import", "--out", out, "--sut", "mutant:nope", good}, "unknown mutant", "an unknown sandbox"},
		{[]string{"import"}, "want at least one FILE", "no FILE"},
	} {
		st, _, stderr := run(t, tt.args...)
		if st != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q: %s", tt.args, st, stderr, tt.want, tt.reason)
		}
	}
}
