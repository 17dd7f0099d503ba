package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzfile"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// TestSUTHelpListsEveryDoor: the --sut help of every command that takes
// one, and the usage, name every door package sut opens. The doors are read
// from sut.Lookup's own list of what it wants, so a new door without help
// fails here.
func TestSUTHelpListsEveryDoor(t *testing.T) {
	_, err := sut.Lookup("no such sandbox")
	if err == nil {
		t.Fatal("sut.Lookup took an unknown name")
	}
	doors := regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(err.Error(), -1)
	if len(doors) < 5 {
		t.Fatalf("sut.Lookup's error names %d doors: %v", len(doors), err)
	}
	_, usageText, _ := run(t, "help")
	for _, d := range doors[1:] { // doors[0] is the unknown name itself
		door := d[1]
		if !strings.Contains(sutHelp, `"`+door) {
			t.Errorf("the --sut help does not name %q: %s", door, sutHelp)
		}
		if !strings.Contains(usageText, "  "+door) {
			t.Errorf("the usage does not list %q:\n%s", door, usageText)
		}
	}
	for _, cmd := range []string{"run", "replay", "minimize", "import", "report"} {
		if _, out, _ := run(t, cmd, "-h"); !strings.Contains(out, sutHelp) {
			t.Errorf("%s -h lacks the --sut help:\n%s", cmd, out)
		}
	}
}

// TestUsageListsEveryExitStatus: the usage names each exit status the
// command line returns, with what it means.
func TestUsageListsEveryExitStatus(t *testing.T) {
	_, out, _ := run(t, "help")
	for _, st := range []struct {
		code int
		says string
	}{{ExitOK, "nothing wrong"}, {ExitFinding, "a finding"}, {ExitUsage, "bad usage"}, {ExitInterrupted, "interrupted"}} {
		if !regexp.MustCompile(`(?m)^  ` + string(rune('0'+st.code)) + `  ` + st.says).MatchString(out) {
			t.Errorf("the usage does not list exit status %d (%s):\n%s", st.code, st.says, out)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		st, out, errs := run(t, args...)
		if st != ExitOK || !regexp.MustCompile(`^sbxfuzz \S+ go\S+ \w+/\w+\n$`).MatchString(out) {
			t.Errorf("%v: status %d, stdout %q, stderr %q", args, st, out, errs)
		}
	}
	if st, _, _ := run(t, "version", "extra"); st != ExitUsage {
		t.Errorf("version extra: status %d, want 2", st)
	}
}

func TestModuleVersion(t *testing.T) {
	dep := func(path, version string, replace *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: version, Replace: replace}
	}
	for _, c := range []struct {
		reason string
		info   *debug.BuildInfo
		want   string
	}{
		{"go install of a release", &debug.BuildInfo{Main: *dep(modulePath, "v1.2.3", nil)}, "v1.2.3"},
		{"built in the checkout", &debug.BuildInfo{Main: *dep(modulePath, "(devel)", nil)}, "devel"},
		{"a dependency of a program built with sbxcli", &debug.BuildInfo{Main: *dep("example.com/mine", "(devel)", nil),
			Deps: []*debug.Module{dep("pgregory.net/rapid", "v1.3.0", nil), dep(modulePath, "v0.4.0", nil)}}, "v0.4.0"},
		{"a dependency replaced by a directory", &debug.BuildInfo{Main: *dep("example.com/mine", "", nil),
			Deps: []*debug.Module{dep(modulePath, "v0.4.0", dep("../sbxfuzz", "", nil))}}, "devel"},
		{"a dependency replaced by a fork", &debug.BuildInfo{Main: *dep("example.com/mine", "", nil),
			Deps: []*debug.Module{dep(modulePath, "v0.4.0", dep("example.com/fork", "v0.4.1", nil))}}, "v0.4.1"},
		{"no build information", nil, "devel"},
	} {
		if got := moduleVersion(c.info, c.info != nil); got != c.want {
			t.Errorf("%s: moduleVersion = %q, want %q", c.reason, got, c.want)
		}
	}
}

// TestFlagsAfterArguments: a flag after a file argument is a flag, and
// after -- everything is an argument.
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	leak := writeFile(t, dir, "leak.sbx", "grant fs_read /work\nfile /workshop/s leak\n\nfs_read /workshop/s\n")
	for _, c := range []struct {
		reason string
		args   []string
		want   int
	}{
		{"the flag before the file", []string{"replay", "--sut", "mutant:raw-prefix", leak}, ExitFinding},
		{"the flag after the file", []string{"replay", leak, "--sut", "mutant:raw-prefix"}, ExitFinding},
		{"the flag after the file, with =", []string{"replay", leak, "--sut=mutant:raw-prefix"}, ExitFinding},
		{"the flag between two files", []string{"replay", leak, "--sut", "mutant:raw-prefix", trace}, ExitFinding},
		{"no flag: the reference", []string{"replay", leak}, ExitOK},
		{"a boolean flag after the file", []string{"fmt", leak, "-l"}, ExitOK},
		{"after --, a flag is a file name", []string{"replay", leak, "--", "--sut"}, ExitUsage},
		{"a flag after the file lacks its value", []string{"replay", leak, "--sut"}, ExitUsage},
	} {
		st, out, errs := run(t, c.args...)
		if st != c.want {
			t.Errorf("%s: %v: status %d, want %d\nstdout %s\nstderr %s", c.reason, c.args, st, c.want, out, errs)
		}
	}
	// -l after the file lists it (it is not canonical) and prints nothing else.
	loose := writeFile(t, dir, "loose.sbx", "grant   fs_read /work\n")
	if _, out, _ := run(t, "fmt", loose, "-l"); out != loose+"\n" {
		t.Errorf("fmt FILE -l printed %q, want the file's name", out)
	}
	if _, _, errs := run(t, "replay", leak, "--", "--sut"); !strings.Contains(errs, "--sut: no such file") {
		t.Errorf("replay FILE -- --sut: stderr %q, want --sut read as a file name", errs)
	}
}

// TestCampaignSizeMustBePositive: --checks 0, --duration 0 and negative
// values are usage errors, not a default campaign of 10,000 checks.
func TestCampaignSizeMustBePositive(t *testing.T) {
	out := t.TempDir()
	for _, cmd := range []string{"run", "report"} {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--checks", "0"}, "--checks 0: want a positive number of checks"},
			{[]string{"--checks", "-5"}, "--checks -5: want a positive number of checks"},
			{[]string{"--duration", "0"}, "--duration 0s: want a positive duration"},
			{[]string{"--duration", "0s", "--checks", "10"}, "--duration 0s: want a positive duration"},
			{[]string{"--duration", "-1s"}, "--duration -1s: want a positive duration"},
			{[]string{"--workers", "-1", "--checks", "1"}, "--workers -1: must not be negative"},
		} {
			args := append([]string{cmd}, c.args...)
			if cmd == "run" {
				args = append(args, "--out", out)
			}
			st, stdout, errs := run(t, args...)
			if st != ExitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("%v: status %d, stderr %q; want 2 and %q", args, st, errs, c.want)
			}
			if stdout != "" {
				t.Errorf("%v: a refused campaign printed %d bytes on stdout", args, len(stdout))
			}
		}
	}
}

// errorLine is the form of every error line: "sbxfuzz: reason", or a
// scenario's "FILE:LINE: reason" (SPEC §11).
var errorLine = regexp.MustCompile(`^(sbxfuzz: \S|\S+\.sbx:\d+: \S)`)

// TestOneErrorPrefix: every error of every command is one line with one
// prefix, "sbxfuzz: ", or a scenario file's "FILE:LINE: ".
func TestOneErrorPrefix(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.sbx", "fs_read /w\ngrant fs_read /x\n")
	missing := filepath.Join(dir, "missing.sbx")
	notJSON := writeFile(t, dir, "x.json", "{")
	notInput := writeFile(t, dir, "input", "go test fuzz v1\nint(3)\n")
	for _, c := range []struct {
		args      []string
		parseLine bool // the error is a scenario file's, FILE:LINE:
	}{
		{args: []string{"frobnicate"}},
		{args: []string{"replay", "--nope", trace}},
		{args: []string{"replay", "--format", "xml", trace}},
		{args: []string{"replay", "--sut", "nope", trace}},
		{args: []string{"replay", missing}},
		{args: []string{"replay", dir}},
		{args: []string{"replay", bad}, parseLine: true},
		{args: []string{"replay"}},
		{args: []string{"fmt", missing}},
		{args: []string{"fmt", bad}, parseLine: true},
		{args: []string{"fmt", "-x"}},
		{args: []string{"minimize", missing}},
		{args: []string{"minimize", bad}, parseLine: true},
		{args: []string{"minimize", "--invariant", "nope", trace}},
		{args: []string{"minimize", trace, trace}},
		{args: []string{"import", "--out", dir, missing}},
		{args: []string{"import", "--out", dir, notInput}},
		{args: []string{"import", "--layout", "afl", notInput}},
		{args: []string{"run", "--checks", "0"}},
		{args: []string{"run", "--timeout", "0s", "--out", dir}},
		{args: []string{"run", "--duration", "xyz"}},
		{args: []string{"run", "--out", bad}},
		{args: []string{"report", "--from", notJSON}},
		{args: []string{"report", "--from", missing}},
		{args: []string{"report", "--workers", "1000"}},
		{args: []string{"mutants", "--mutant", "nope"}},
		{args: []string{"mutants", "--checks", "0"}},
		{args: []string{"serve", "extra"}},
		{args: []string{"serve", "--sut", "exec:x"}},
		{args: []string{"version", "extra"}},
	} {
		st, _, errs := run(t, c.args...)
		if st != ExitUsage {
			t.Errorf("%v: status %d, want 2 (stderr %q)", c.args, st, errs)
		}
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		if len(lines) != 1 || !errorLine.MatchString(lines[0]) {
			t.Errorf("%v: stderr %q: want one line starting \"sbxfuzz: \" or \"FILE:LINE: \"", c.args, errs)
			continue
		}
		if isParse := !strings.HasPrefix(lines[0], "sbxfuzz: "); isParse != c.parseLine {
			t.Errorf("%v: stderr %q: want a parse error's FILE:LINE: %v", c.args, errs, c.parseLine)
		}
	}
}

// TestNoCommandPrintsUsage: without a command, the usage goes to stderr
// and the status is 2.
func TestNoCommandPrintsUsage(t *testing.T) {
	st, out, errs := run(t)
	if st != ExitUsage || out != "" || !strings.HasPrefix(errs, "sbxfuzz: an adversarial") || !strings.Contains(errs, "Exit status:") {
		t.Errorf("no command: status %d, stdout %q, stderr %q", st, out, errs)
	}
}

// TestRunWritesFindingsUnderTheCache: a campaign with a finding and no
// --out writes it under the user's cache directory, says where, and leaves
// the working directory as it was.
func TestRunWritesFindingsUnderTheCache(t *testing.T) {
	cache, work := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // Linux and the BSDs
	t.Setenv("HOME", cache)           // macOS: $HOME/Library/Caches
	t.Setenv("LocalAppData", cache)   // Windows
	t.Chdir(work)
	st, out, errs := run(t, "run", "--seed", "1", "--checks", "300", "--sut", "mutant:no-boundary")
	if st != ExitFinding {
		t.Fatalf("status %d, want 1: %s", st, errs)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(base, "sbxfuzz", "findings", "mutant-no-boundary")
	files, _ := filepath.Glob(filepath.Join(want, "*.sbx"))
	if len(files) == 0 || !strings.Contains(out, files[0]) {
		t.Errorf("findings under %s: %v; stdout %q", want, files, out)
	}
	if !strings.Contains(errs, "written to "+want) {
		t.Errorf("the summary does not say where the findings are: %q", errs)
	}
	if left, _ := os.ReadDir(work); len(left) > 0 {
		t.Errorf("the campaign wrote into the working directory: %v", left)
	}
}

// TestImportWritesUnderTheCache: import without --out writes its finding
// under the user's cache directory, and $SBXFUZZ_OUT overrides that.
func TestImportWritesUnderTheCache(t *testing.T) {
	cache, work, dir := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv("LocalAppData", cache)
	t.Chdir(work)
	input := filepath.Join(dir, "crasher")
	if err := os.WriteFile(input, fuzzfile.EncodeGoFuzz(rawPrefixInput), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(base, "sbxfuzz", "findings", "mutant-raw-prefix")
	if st, out, errs := run(t, "import", "--sut", "mutant:raw-prefix", input); st != ExitFinding || !strings.HasPrefix(out, want+string(filepath.Separator)) {
		t.Errorf("import: status %d, stdout %q, stderr %q; want 1 and a file under %s", st, out, errs, want)
	}
	if left, _ := os.ReadDir(work); len(left) > 0 {
		t.Errorf("import wrote into the working directory: %v", left)
	}
	env := t.TempDir()
	if st, out, errs := runEnv(t, map[string]string{"SBXFUZZ_OUT": env}, "import", "--sut", "mutant:raw-prefix", input); st != ExitFinding || !strings.HasPrefix(out, env) {
		t.Errorf("import with $SBXFUZZ_OUT: status %d, stdout %q, stderr %q; want a file under %s", st, out, errs, env)
	}
}

// TestFindingsDirInHelp: run and import say in their help where findings
// go by default.
func TestFindingsDirInHelp(t *testing.T) {
	for _, cmd := range []string{"run", "import"} {
		_, out, _ := run(t, cmd, "-h")
		if !strings.Contains(strings.Join(strings.Fields(out), " "), "sbxfuzz/findings/SUT under the user's cache directory") || strings.Contains(out, "corpus/findings") {
			t.Errorf("%s -h does not say where findings go:\n%s", cmd, out)
		}
	}
}

// TestTimeoutHelpNamesTheProxyDoor: --timeout and --start-timeout bound
// what the proxy: door does too, and their help says so on every command
// that takes them.
func TestTimeoutHelpNamesTheProxyDoor(t *testing.T) {
	for _, cmd := range []string{"run", "replay", "minimize", "import", "report"} {
		_, out, _ := run(t, cmd, "-h")
		for _, want := range []string{"a proxy: proxy started and listening", "on proxy:, each fetch through the proxy"} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
				t.Errorf("%s -h lacks %q:\n%s", cmd, want, out)
			}
		}
	}
}
