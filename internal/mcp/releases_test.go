package mcp

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestInstalled: an install in the cache is found where .ci/mcp-install
// puts it; a missing one is an error that says how to install it; a
// version that could name another directory is refused.
func TestInstalled(t *testing.T) {
	cache := t.TempDir()
	entry := Entry(cache, "1.2.3")
	if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entry, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Installed(cache, "1.2.3"); err != nil || got != entry {
		t.Errorf("Installed = %q, %v; want %q", got, err, entry)
	}
	if _, err := Installed(cache, "9.9.9"); err == nil || !strings.Contains(err.Error(), ".ci/mcp-install 9.9.9") {
		t.Errorf("a release not installed: %v, want an error naming .ci/mcp-install", err)
	}
	for _, v := range []string{"", "../x", "a/b", ".hidden"} {
		if _, err := Installed(cache, v); err == nil || !strings.Contains(err.Error(), "is not a version") {
			t.Errorf("version %q: %v", v, err)
		}
	}
}

// TestInstalledCommandInstallsNothing: asked for a release that is not in
// the cache, InstalledCommand fails without running npm (a fake npm first
// on PATH would leave a mark) and without writing into the cache.
func TestInstalledCommandInstallsNothing(t *testing.T) {
	bin, cache := t.TempDir(), filepath.Join(t.TempDir(), "npm")
	mark := filepath.Join(bin, "npm-ran")
	for _, tool := range []string{"npm", "node", "npx"} {
		script := "#!/bin/sh\ntouch " + mark + "\n"
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	t.Setenv(CacheEnv, cache)
	if cmd, err := InstalledCommand(CurrentVersion); err == nil || !strings.Contains(err.Error(), "is not installed") {
		t.Errorf("InstalledCommand with an empty cache: %q, %v; want an error saying it is not installed", cmd, err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("InstalledCommand ran npm")
	}
	if _, err := os.Stat(cache); err == nil {
		t.Errorf("InstalledCommand created %s", cache)
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

// TestInstalledPin: a pin (package@version) is found in its own npm prefix
// under the cache, named as .ci/mcp-install names it (a scope's slash made
// "+"), at the script its package.json's bin names; one not installed
// says how to install it; a pin that could name another directory is
// refused.
func TestInstalledPin(t *testing.T) {
	cache := t.TempDir()
	for _, pin := range []string{FastFilesystemPin, DesktopCommanderPin, AgentInfraFilesystemPin, MCPServerFilesystemPin} {
		dir := PinDir(cache, pin)
		if rel, err := filepath.Rel(filepath.Join(cache, strings.ReplaceAll(pin, "/", "+")), dir); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("PinDir(%q) = %s, want it under the pin's own prefix", pin, dir)
		}
		if _, err := Installed(cache, pin); err == nil || !strings.Contains(err.Error(), ".ci/mcp-install "+pin) {
			t.Errorf("%s not installed: %v, want an error naming .ci/mcp-install", pin, err)
		}
		entry := installFake(t, dir, `{"name": "x", "bin": {"x": "dist/index.js"}}`, "dist/index.js")
		if got, err := Installed(cache, pin); err != nil || got != entry {
			t.Errorf("Installed(%q) = %q, %v; want %q", pin, got, err, entry)
		}
	}
	if want := filepath.Join(cache, "@wonderwhy-er+desktop-commander@0.2.52", "node_modules", "@wonderwhy-er", "desktop-commander"); PinDir(cache, DesktopCommanderPin) != want {
		t.Errorf("PinDir(%q) = %s, want %s", DesktopCommanderPin, PinDir(cache, DesktopCommanderPin), want)
	}
	for _, pin := range []string{"@1.0", "x@", "../x@1", "@s/../x@1", "x@../1", "@/x@1", "@s/x/y@1", `x\y@1`, "@s@1"} {
		if _, err := Installed(cache, pin); err == nil || !strings.Contains(err.Error(), "is not an npm package@version") {
			t.Errorf("pin %q: %v, want it refused", pin, err)
		}
	}
}

// TestPinEntryFollowsBin: the script of a pinned package is the one its
// package.json's bin names, wherever its bundler put it
// (@agent-infra/mcp-server-filesystem's is dist/index.cjs, beside an ES
// module dist/index.js that is not the command), whether bin is a string,
// one command, or several with one named after the package; a bin that
// leads out of the package, or names no script, is an error.
func TestPinEntryFollowsBin(t *testing.T) {
	for _, tc := range []struct {
		name, pkg, bin string
		want           string // "" for an error
	}{
		{"a .cjs bin", `{"name": "@agent-infra/mcp-server-filesystem", "bin": {"mcp-server-filesystem": "dist/index.cjs"}}`, "dist/index.cjs", "dist/index.cjs"},
		{"a string", `{"name": "s", "bin": "./bin/s.js"}`, "bin/s.js", "bin/s.js"},
		{"several, one the package's", `{"name": "@x/srv", "bin": {"srv-setup": "setup.js", "srv": "dist/srv.mjs"}}`, "dist/srv.mjs", "dist/srv.mjs"},
		{"several, none the package's", `{"name": "srv", "bin": {"a": "a.js", "b": "b.js"}}`, "a.js", ""},
		{"out of the package", `{"name": "srv", "bin": "../../evil.js"}`, "dist/index.js", ""},
		{"no bin", `{"name": "srv"}`, "dist/index.js", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			const pin = "@s/srv@1.0.0"
			entry := installFake(t, PinDir(cache, pin), tc.pkg, tc.bin)
			got, err := Installed(cache, pin)
			switch {
			case tc.want == "" && err == nil:
				t.Errorf("Installed = %q, want an error", got)
			case tc.want != "" && (err != nil || got != entry):
				t.Errorf("Installed = %q, %v; want %q", got, err, entry)
			}
		})
	}
}

// installFake writes a package's package.json and an empty file at bin
// (slash-separated, under dir) and returns that file's path.
func installFake(t *testing.T, dir, pkg, bin string) string {
	t.Helper()
	entry := filepath.Join(dir, filepath.FromSlash(bin))
	if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entry, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	return entry
}

// TestInstallScriptReadsThePins: .ci/mcp-install, which alone installs
// the releases, reads the pins out of the file it names with sed; the same
// patterns, applied here to that file, find exactly the pinned constants,
// so that moving or reformatting them cannot leave the script installing
// nothing, or stale releases.
func TestInstallScriptReadsThePins(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", ".ci", "mcp-install"))
	if err != nil {
		t.Fatal(err)
	}
	src := regexp.MustCompile(`\$\(sed -n '[^']*' (internal/mcp/[a-z_]+\.go)\)`).FindAllSubmatch(script, -1)
	if len(src) != 2 || string(src[0][1]) != string(src[1][1]) {
		t.Fatalf(".ci/mcp-install does not read its pins from one Go file: %q", src)
	}
	text, err := os.ReadFile(filepath.Join("..", "..", string(src[0][1])))
	if err != nil {
		t.Fatal(err)
	}
	// The sed patterns of the script, in Go's syntax.
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{`(?m)^\t(?:Current|Vulnerable)Version *= *"(.*)"$`, []string{CurrentVersion, VulnerableVersion}},
		{`(?m)^\t[A-Za-z]*Pin *= *"(.*@.*)"$`, []string{FastFilesystemPin, DesktopCommanderPin, AgentInfraFilesystemPin, MCPServerFilesystemPin, MCPFetchServerPin, ServerEverythingPin, MCPNpxFetchPin, KazuphMCPFetchPin}},
	} {
		var got []string
		for _, m := range regexp.MustCompile(tc.pattern).FindAllSubmatch(text, -1) {
			got = append(got, string(m[1]))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s in %s: %q, want %q", tc.pattern, src[0][1], got, tc.want)
		}
	}
}
