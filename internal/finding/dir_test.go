package finding

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirName(t *testing.T) {
	for _, c := range []struct{ sut, want, reason string }{
		{"reference", "reference", "a plain name is kept"},
		{"mutant:raw-prefix", "mutant-raw-prefix", "':' is not allowed on Windows"},
		{"exec:python3 examples/python/sandbox.py", "exec-python3-examples-python-sandbox.py-77cce871", "runs of separators become one '-', and the name rewritten ends in a hash of it"},
		{"exec:../../x", "exec-..-..-x-69f9443a", "no path separator survives"},
		{"", "custom", "an empty name, as sbxtest names it"},
		{"..", "custom", "never a parent directory"},
		{"::", "custom", "nothing left"},
		{strings.Repeat("a", 100), strings.Repeat("a", maxDirName-9) + "-28165978", "bounded, the name cut ends in a hash of it"},
		{strings.Repeat("a", maxDirName), strings.Repeat("a", maxDirName), "a name as long as the bound is kept"},
	} {
		if got := DirName(c.sut); got != c.want {
			t.Errorf("DirName(%q) = %q, want %q (%s)", c.sut, got, c.want, c.reason)
		}
	}
}

// TestDirNamesOfTwoSandboxesDiffer: two --sut names that read alike once
// cut or rewritten name two directories.
func TestDirNamesOfTwoSandboxesDiffer(t *testing.T) {
	for _, p := range [][2]string{
		{"exec:python3 /home/ci/sandboxes/capability-sandbox/bin/run_sandbox.py --policy strict", "exec:python3 /home/ci/sandboxes/capability-sandbox/bin/run_sandbox.py --policy lax"},
		{"exec:./sbx a", "exec:./sbx/a"},
		{"proxy:/opt/proxy one", "proxy:/opt/proxy/one"},
	} {
		if a, b := DirName(p[0]), DirName(p[1]); a == b || len(a) > maxDirName || len(b) > maxDirName {
			t.Errorf("DirName(%q) = %q, DirName(%q) = %q; want two names of at most %d bytes", p[0], a, p[1], b, maxDirName)
		}
	}
}

// TestDefaultDirIsUnderTheCache: the default directory is the user's cache
// directory's, not the working directory's.
func TestDefaultDirIsUnderTheCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // Linux and the BSDs
	t.Setenv("HOME", cache)           // macOS: $HOME/Library/Caches
	t.Setenv("LocalAppData", cache)   // Windows
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache directory here: %v", err)
	}
	got := DefaultDir("mutant:raw-prefix")
	if want := filepath.Join(base, "sbxfuzz", "findings", "mutant-raw-prefix"); got != want {
		t.Errorf("DefaultDir = %q, want %q", got, want)
	}
	if !strings.HasPrefix(got, cache) {
		t.Errorf("DefaultDir = %q, not under the cache %q", got, cache)
	}
}
