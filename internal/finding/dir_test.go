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
		{"exec:python3 examples/python/sandbox.py", "exec-python3-examples-python-sandbox.py", "runs of separators become one '-'"},
		{"exec:../../x", "exec-..-..-x", "no path separator survives"},
		{"", "custom", "an empty name, as sbxtest names it"},
		{"..", "custom", "never a parent directory"},
		{"::", "custom", "nothing left"},
		{strings.Repeat("a", 100), strings.Repeat("a", maxDirName), "bounded"},
	} {
		if got := DirName(c.sut); got != c.want {
			t.Errorf("DirName(%q) = %q, want %q (%s)", c.sut, got, c.want, c.reason)
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
