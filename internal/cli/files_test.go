package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// messy is a scenario that is not in canonical form, and canon its
// canonical text.
const (
	messy = "# header\ngrant   fs_read   /work/\nfs_read \"/work/a\"   =>   not_found\n"
	canon = "# header\n\ngrant fs_read /work/\n\nfs_read /work/a                               => not_found\n"
)

// TestFmtWriteFollowsSymlink: fmt -w rewrites a link's target, in the
// target's directory, and the link stays a link.
func TestFmtWriteFollowsSymlink(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := writeFile(t, other, "real.sbx", messy)
	link := filepath.Join(dir, "link.sbx")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if st, _, errs := run(t, "fmt", "-w", link); st != ExitOK {
		t.Fatalf("fmt -w: status %d: %s", st, errs)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link.sbx is no longer a link (%v, %v)", st.Mode(), err)
	}
	if to, _ := os.Readlink(link); to != target {
		t.Errorf("the link now points to %q, want %q", to, target)
	}
	if got, _ := os.ReadFile(target); string(got) != canon {
		t.Errorf("the target holds %q, want the canonical text %q", got, canon)
	}
	for _, d := range []string{dir, other} {
		if entries, _ := os.ReadDir(d); len(entries) != 1 {
			t.Errorf("%s holds %d files, want 1", d, len(entries))
		}
	}
}

// TestWriteRefusesReadOnly: fmt -w and minimize -w refuse a file whose
// mode has no write bit, leaving its content and mode as they were (the
// tests may run as root, who could write it).
func TestWriteRefusesReadOnly(t *testing.T) {
	dir := t.TempDir()
	leak := "grant fs_read /work\nfile /work/a x\nfile /workshop/s leak\n\nfs_read /work/a\nfs_read /workshop/s\nfs_read /work/a\n"
	for _, c := range []struct {
		reason string
		text   string
		args   []string
	}{
		{"fmt -w", messy, []string{"fmt", "-w"}},
		{"minimize -w", leak, []string{"minimize", "--sut", "mutant:raw-prefix", "-w"}},
	} {
		p := writeFile(t, dir, strings.ReplaceAll(c.reason, " ", "")+".sbx", c.text)
		if err := os.Chmod(p, 0o444); err != nil {
			t.Fatal(err)
		}
		st, _, errs := run(t, append(c.args, p)...)
		if st != ExitUsage || !strings.Contains(errs, p) || !strings.Contains(errs, "read-only") {
			t.Errorf("%s of a read-only file: status %d, stderr %q; want 2 and a read-only error naming it", c.reason, st, errs)
		}
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != c.text || info.Mode().Perm() != 0o444 {
			t.Errorf("%s: the read-only file now holds %q with mode %v", c.reason, got, info.Mode().Perm())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files left in the directory, want 2", len(entries))
	}
}

// TestReplayBOM: a .sbx file that starts with a UTF-8 byte-order mark
// replays like the same file without it.
func TestReplayBOM(t *testing.T) {
	plain, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, t.TempDir(), "bom.sbx", "\ufeff"+string(plain))
	st, out, errs := run(t, "replay", p)
	if st != ExitOK || !strings.Contains(out, "8 steps, ok") {
		t.Errorf("replay of a BOM file: status %d, stderr %q, output:\n%s", st, errs, out)
	}
}

// TestOutputCheckedFirst: an output path that cannot be written is exit 2
// before any campaign runs, saying why: nothing is printed but the error,
// neither a summary nor a report. (The campaign, were it run, would take
// two seconds; the test does not time it, so a busy machine cannot fail it.)
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "file", "x")
	long := []string{"--duration", "2s", "--checks", "100000000"}
	for _, c := range []struct {
		reason string
		args   []string
		want   string
	}{
		{"run --out under a regular file", []string{"run", "--out", filepath.Join(file, "findings")}, "not a directory"},
		{"run --out a regular file", []string{"run", "--out", file}, "not a directory"},
		{"report --output into a missing directory", []string{"report", "--output", filepath.Join(dir, "missing", "r.md")}, "does not exist"},
		{"report --svg naming a directory", []string{"report", "--svg", dir}, "is a directory"},
		{"import --out under a regular file", []string{"import", "--out", filepath.Join(file, "findings"), file}, "not a directory"},
	} {
		args := append(c.args, long...)
		if c.args[0] == "import" {
			args = c.args
		}
		st, out, errs := run(t, args...)
		if st != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: status %d, stderr %q; want 2 and %q", c.reason, st, errs, c.want)
		}
		if lines := strings.Count(errs, "\n"); out != "" || lines != 1 {
			t.Errorf("%s: the error is not all that was printed (%d lines on stderr, %d bytes on stdout): did a campaign run first?\n%s", c.reason, lines, len(out), errs)
		}
	}
}

// TestCampaignFlagBounds: --workers above 256 and a --duration under a
// millisecond are refused by run and report, saying the bound.
func TestCampaignFlagBounds(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--out", out, "--checks", "1", "--workers", "257"}, "at most 256"},
		{[]string{"run", "--out", out, "--duration", "1ns"}, "too short to check anything"},
		{[]string{"run", "--out", out, "--duration", "999us"}, "too short to check anything"},
		{[]string{"report", "--checks", "1", "--workers", "100000"}, "at most 256"},
		{[]string{"report", "--duration", "1ns"}, "too short to check anything"},
	} {
		st, _, errs := run(t, c.args...)
		if st != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", c.args, st, errs, c.want)
		}
	}
	if st, _, errs := run(t, "run", "--out", out, "--checks", "2", "--workers", "256"); st != ExitOK {
		t.Errorf("--workers 256: status %d: %s", st, errs)
	}
}

// TestWriteIgnoresPlantedLinks: fmt -w and minimize -w write through a
// temporary file of their own, never through a link planted under the
// fixed temporary name earlier versions used: the file such a link leads
// to keeps its content and mode, and the file named is rewritten.
func TestWriteIgnoresPlantedLinks(t *testing.T) {
	leak := "grant fs_read /work\nfile /work/a x\nfile /workshop/s leak\n\nfs_read /work/a\nfs_read /workshop/s\nfs_read /work/a\n"
	for _, c := range []struct {
		reason string
		text   string
		args   []string
	}{
		{"fmt -w", messy, []string{"fmt", "-w"}},
		{"minimize -w", leak, []string{"minimize", "--sut", "mutant:raw-prefix", "-w"}},
	} {
		for _, plant := range []struct {
			kind string
			link func(old, new string) error
		}{{"hard link", os.Link}, {"symbolic link", os.Symlink}} {
			dir := t.TempDir()
			other := writeFile(t, dir, "other.txt", "not yours\n")
			if err := os.Chmod(other, 0o600); err != nil {
				t.Fatal(err)
			}
			before, err := os.Stat(other)
			if err != nil {
				t.Fatal(err)
			}
			p := writeFile(t, dir, "x.sbx", c.text)
			if err := plant.link(other, filepath.Join(dir, ".x.sbx.sbxfuzz-tmp")); err != nil {
				t.Skipf("%s: %v", plant.kind, err)
			}
			if st, _, errs := run(t, append(c.args, p)...); st == ExitUsage {
				t.Fatalf("%s with a %s planted: status %d: %s", c.reason, plant.kind, st, errs)
			}
			info, err := os.Stat(other)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(other); string(got) != "not yours\n" || info.Mode() != before.Mode() {
				t.Errorf("%s with a %s planted: the file it leads to now holds %q with mode %v", c.reason, plant.kind, got, info.Mode().Perm())
			}
			if got, _ := os.ReadFile(p); string(got) == c.text {
				t.Errorf("%s with a %s planted: x.sbx was not rewritten", c.reason, plant.kind)
			}
		}
	}
}

// TestOutNotLeftByARunThatNeverStarted: a run whose sandbox cannot start
// exits 2 and leaves no --out directory it made for itself; one that was
// there stays.
func TestOutNotLeftByARunThatNeverStarted(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "new", "findings")
	sutArg := "exec:" + filepath.Join(dir, "no-such-program")
	if st, _, errs := run(t, "run", "--sut", sutArg, "--checks", "5", "--out", made); st != ExitUsage {
		t.Fatalf("status %d, want 2 (%s)", st, errs)
	}
	if _, err := os.Stat(filepath.Dir(made)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directories of --out %s, made by a run that never started, are still there (%v)", made, err)
	}
	if st, _, errs := run(t, "run", "--sut", sutArg, "--checks", "5", "--out", dir); st != ExitUsage {
		t.Fatalf("status %d, want 2 (%s)", st, errs)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("--out %s, there before the run, was removed: %v", dir, err)
	}
}

// TestFmtWriteAndListRefused: -w and -l are one or the other; given both,
// fmt listed the file, rewrote nothing and exited 0, so a user who asked
// for the rewrite found the file as it was.
func TestFmtWriteAndListRefused(t *testing.T) {
	dir := t.TempDir()
	messy := "grant   fs_read   /work/\nfs_read /work/a   =>   not_found\n"
	p := writeFile(t, dir, "s.sbx", messy)
	st, out, errs := run(t, "fmt", "-w", "-l", p)
	if st != ExitUsage || out != "" || !strings.Contains(errs, "-w and -l") {
		t.Errorf("fmt -w -l: status %d, stdout %q, stderr %q; want 2 and the two flags named", st, out, errs)
	}
	if got, _ := os.ReadFile(p); string(got) != messy {
		t.Errorf("the file was changed: %q", got)
	}
}
