package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallServerKeepsAnInstall: an install already in the cache is
// returned as it is, without npm; a version that could name another
// directory is refused before anything runs.
func TestInstallServerKeepsAnInstall(t *testing.T) {
	cache := t.TempDir()
	entry := Entry(cache, "1.2.3")
	if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entry, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "") // no npm: it must not be needed
	if got, err := InstallServer(cache, "1.2.3"); err != nil || got != entry {
		t.Errorf("InstallServer = %q, %v; want %q", got, err, entry)
	}
	for _, v := range []string{"", "../x", "a/b", ".hidden"} {
		if _, err := InstallServer(cache, v); err == nil || !strings.Contains(err.Error(), "is not a version") {
			t.Errorf("version %q: %v", v, err)
		}
	}
	if _, err := InstallServer(cache, "9.9.9"); err == nil || !strings.Contains(err.Error(), "npm") {
		t.Errorf("an install without npm: %v", err)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv(CacheEnv, "/somewhere/npm")
	if d, err := DefaultCacheDir(); err != nil || d != "/somewhere/npm" {
		t.Errorf("with %s set: %q %v", CacheEnv, d, err)
	}
	t.Setenv(CacheEnv, "")
	if d, err := DefaultCacheDir(); err == nil && !strings.HasSuffix(d, filepath.Join("sbxfuzz", "npm")) {
		t.Errorf("the default: %q", d)
	}
}
