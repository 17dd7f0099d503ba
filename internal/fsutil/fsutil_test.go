package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
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

// TestWriteAtomicReusesStaleTemp: the temporary files a crash left behind
// for a file, under the names of this version and of the earlier one, are
// gone after the next write of that file.
func TestWriteAtomicReusesStaleTemp(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x.sbx")
	write(t, name, "old\n", 0o644)
	write(t, filepath.Join(dir, ".x.sbx.sbxfuzz-tmp"), "half a scenario", 0o600)
	write(t, filepath.Join(dir, ".x.sbx.123456.sbxfuzz-tmp"), "half a scenario", 0o600)
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
	wantPerm := os.FileMode(0o640)
	if runtime.GOOS == "windows" {
		wantPerm = 0o666 // Windows keeps a read-only flag, not permission bits
	}
	if b, _ := os.ReadFile(name); string(b) != "new\n" || st.Mode().Perm() != wantPerm {
		t.Errorf("x.sbx holds %q with mode %v, want \"new\\n\" with %v", b, st.Mode().Perm(), wantPerm)
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
		if runtime.GOOS == "windows" {
			t.Skip("making a link needs a privilege on Windows:", err)
		}
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

// TestWriteAtomicIgnoresPlantedLinks: a hard link or a symbolic link
// planted where an earlier version put its temporary file (a fixed name,
// opened without O_EXCL) does not make the write land in the file it leads
// to: that file keeps its content and mode, and the target is written.
func TestWriteAtomicIgnoresPlantedLinks(t *testing.T) {
	for _, plant := range []struct {
		reason string
		link   func(old, new string) error
	}{
		{"a hard link", os.Link},
		{"a symbolic link", os.Symlink},
	} {
		dir := t.TempDir()
		other, name := filepath.Join(dir, "other"), filepath.Join(dir, "x.sbx")
		write(t, other, "not yours\n", 0o600)
		write(t, name, "old\n", 0o644)
		if err := plant.link(other, filepath.Join(dir, ".x.sbx"+TempSuffix)); err != nil {
			t.Skipf("%s: %v", plant.reason, err)
		}
		if err := WriteAtomic(name, []byte("new\n"), 0o644); err != nil {
			t.Fatalf("%s planted: %v", plant.reason, err)
		}
		st, err := os.Stat(other)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(other); string(b) != "not yours\n" || st.Mode().Perm() != 0o600 && runtime.GOOS != "windows" {
			t.Errorf("%s planted at the old temporary name: the file it leads to now holds %q with mode %v", plant.reason, b, st.Mode().Perm())
		}
		if b, _ := os.ReadFile(name); string(b) != "new\n" {
			t.Errorf("%s planted: x.sbx holds %q", plant.reason, b)
		}
		if got := names(t, dir); !slices.Equal(got, []string{"other", "x.sbx"}) {
			t.Errorf("%s planted: the directory holds %q after the write", plant.reason, got)
		}
	}
}
