package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func write(t *testing.T, name, text string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
}

// TestWriteAtomicReusesStaleTemp: the temporary file a crash left behind
// for a file is gone after the next write of that file.
func TestWriteAtomicReusesStaleTemp(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x.sbx")
	write(t, name, "old\n", 0o644)
	write(t, filepath.Join(dir, ".x.sbx.sbxfuzz-tmp"), "half a scenario", 0o600)
	if err := WriteAtomic(name, []byte("new\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"x.sbx"}) {
		t.Errorf("after the write the directory holds %q, want only x.sbx", got)
	}
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "new\n" || st.Mode().Perm() != 0o640 {
		t.Errorf("x.sbx holds %q with mode %v, want \"new\\n\" with 0640", b, st.Mode().Perm())
	}
}

// TestCleanTemps: CleanTemps removes the stale temporary files of a
// directory and nothing else; a missing directory is not an error.
func TestCleanTemps(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{".a.sbx.sbxfuzz-tmp", ".probe123.sbxfuzz-tmp", "a.sbx", "notes.txt", ".a.sbx.tmp"} {
		write(t, filepath.Join(dir, n), "x", 0o644)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.sbxfuzz-tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "sub.sbxfuzz-tmp", ".b.sbx.sbxfuzz-tmp"), "x", 0o644)
	if err := CleanTemps(dir); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, dir), []string{".a.sbx.tmp", "a.sbx", "notes.txt", "sub.sbxfuzz-tmp"}; !slices.Equal(got, want) {
		t.Errorf("after CleanTemps: %q, want %q", got, want)
	}
	if got := names(t, filepath.Join(dir, "sub.sbxfuzz-tmp")); len(got) != 1 {
		t.Errorf("CleanTemps looked below dir: %q", got)
	}
	if err := CleanTemps(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("CleanTemps of a missing directory: %v", err)
	}
}

// TestWriteAtomicSymlink: a link is followed; its target is rewritten in
// its own directory and the link stays a link.
func TestWriteAtomicSymlink(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target, link := filepath.Join(other, "real.sbx"), filepath.Join(dir, "link.sbx")
	write(t, target, "old\n", 0o644)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(link, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link.sbx is no longer a link: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target holds %q", b)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"link.sbx"}) {
		t.Errorf("link's directory holds %q", got)
	}
	if got := names(t, other); !slices.Equal(got, []string{"real.sbx"}) {
		t.Errorf("target's directory holds %q", got)
	}
}

// TestWriteAtomicReadOnly: a file without a write bit is refused and left
// as it was (the test may run as root, who could write it).
func TestWriteAtomicReadOnly(t *testing.T) {
	name := filepath.Join(t.TempDir(), "ro.sbx")
	write(t, name, "old\n", 0o444)
	err := WriteAtomic(name, []byte("new\n"), 0o644)
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), name) {
		t.Errorf("WriteAtomic of a read-only file: %v, want ErrReadOnly naming it", err)
	}
	st, _ := os.Stat(name)
	if b, _ := os.ReadFile(name); string(b) != "old\n" || st.Mode().Perm() != 0o444 {
		t.Errorf("read-only file now holds %q with mode %v", b, st.Mode().Perm())
	}
}

// TestCheckOut: CheckOutDir creates a missing directory and refuses a path
// under or at a regular file; CheckOutFile refuses a missing directory, a
// directory and a read-only file. Neither leaves anything behind.
func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	write(t, file, "x", 0o644)
	ro := filepath.Join(dir, "ro")
	write(t, ro, "x", 0o444)
	newDir := filepath.Join(dir, "a", "b")
	if err := CheckOutDir(newDir); err != nil {
		t.Errorf("CheckOutDir(missing): %v", err)
	}
	if got := names(t, newDir); len(got) != 0 {
		t.Errorf("CheckOutDir left %q", got)
	}
	for _, bad := range []string{file, filepath.Join(file, "sub")} {
		if err := CheckOutDir(bad); err == nil {
			t.Errorf("CheckOutDir(%s) = nil, want an error", bad)
		}
	}
	if err := CheckOutFile(filepath.Join(dir, "new.md")); err != nil {
		t.Errorf("CheckOutFile(new file): %v", err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing", "r.md"), "does not exist"},
		{dir, "is a directory"},
		{ro, "read-only"},
		{filepath.Join(file, "r.md"), "not a directory"},
	} {
		if err := CheckOutFile(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckOutFile(%s) = %v, want an error saying %q", tc.path, err, tc.want)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a", "f", "ro"}) {
		t.Errorf("the checks left %q", got)
	}
}
