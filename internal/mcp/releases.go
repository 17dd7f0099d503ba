package mcp

// This file locates the pinned releases of the MCP servers in the cache
// where .ci/mcp-install put them; installing them is that script's job
// alone, so that neither go test nor the harness runs npm or needs the
// network. The script reads the pins from the constants below, one a
// line (TestInstallScriptReadsThePins).

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
)

// Package is the npm package of the reference MCP filesystem server.
const Package = "@modelcontextprotocol/server-filesystem"

// The two pinned releases of Package the harness is proven on: the
// current one, which must run clean, and the last one before the fix of
// CVE-2025-53109 and CVE-2025-53110 (2025.7.1), which reads and writes
// outside its allowed directories through a prefix sibling and a link.
const (
	CurrentVersion    = "2026.8.31"
	VulnerableVersion = "2025.3.28"
)

// The pinned releases of the other servers with a built-in profile
// (FastFilesystem, DesktopCommander, AgentInfraFilesystem,
// MCPServerFilesystem), each package@version as npm takes it: the
// releases their profiles were written from and are tested on.
// .ci/mcp-install reads these lines: one constant a line, ending in "Pin".
const (
	FastFilesystemPin       = "fast-filesystem-mcp@3.5.2"
	DesktopCommanderPin     = "@wonderwhy-er/desktop-commander@0.2.52"
	AgentInfraFilesystemPin = "@agent-infra/mcp-server-filesystem@1.2.29"
	MCPServerFilesystemPin  = "mcp-server-filesystem@0.6.2"
)

// The pinned releases of the MCP fetch servers with a built-in profile of
// the egress door (package proxysut: mcp-fetch-server, server-everything,
// mcp-npx-fetch, kazuph-mcp-fetch), installed the same way.
const (
	MCPFetchServerPin   = "mcp-fetch-server@1.1.2"
	ServerEverythingPin = "@modelcontextprotocol/server-everything@2026.8.31"
	MCPNpxFetchPin      = "@tokenizin/mcp-npx-fetch@1.0.0"
	KazuphMCPFetchPin   = "@kazuph/mcp-fetch@1.6.3"
)

// CacheEnv names the environment variable that overrides DefaultCacheDir.
const CacheEnv = "SBXFUZZ_NPM_CACHE"

// TestEnv names the environment variable that turns on the tests that run
// the pinned releases (SBXFUZZ_TEST_NPM=1), once .ci/mcp-install has put
// them into DefaultCacheDir; without it they skip. Nothing in this module
// installs them: go test must neither fill a user's caches nor need the
// network.
const TestEnv = "SBXFUZZ_TEST_NPM"

// DefaultCacheDir is where .ci/mcp-install puts the releases, and where
// the harness looks for them: $SBXFUZZ_NPM_CACHE, else sbxfuzz/npm under
// the user's cache directory.
func DefaultCacheDir() (string, error) { return fsutil.CacheDir(CacheEnv, "npm", "the npm installs") }

// Entry is the path of the server's script in an install of version
// under cacheDir: run it as node ENTRY DIR...
func Entry(cacheDir, version string) string {
	return filepath.Join(cacheDir, version, "node_modules", filepath.FromSlash(Package), "dist", "index.js")
}

// PinDir is the directory of the package of pin (package@version) in
// its install under cacheDir: an npm prefix of its own named after pin,
// the scope's slash made "+".
func PinDir(cacheDir, pin string) string {
	pkg := pin[:strings.LastIndexByte(pin, '@')]
	return filepath.Join(cacheDir, strings.ReplaceAll(pin, "/", "+"), "node_modules", filepath.FromSlash(pkg))
}

// PinEntry is the path of the server's script in the install of pin
// under cacheDir, as its package.json's bin names it (packages put it
// where their bundler does: dist/index.js, dist/index.cjs, ...): run it
// as node ENTRY. A bin that maps several commands must have one named
// after the package (its name without the scope); a bin that leads
// out of the package is an error.
func PinEntry(cacheDir, pin string) (string, error) {
	dir := PinDir(cacheDir, pin)
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var meta struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return "", fmt.Errorf("%s: package.json: %v", pin, err)
	}
	bin, err := binPath(meta.Name, meta.Bin)
	if err != nil {
		return "", fmt.Errorf("%s: package.json: %v", pin, err)
	}
	if !filepath.IsLocal(filepath.FromSlash(bin)) {
		return "", fmt.Errorf("%s: package.json: bin %q is not a path inside the package", pin, bin)
	}
	return filepath.Join(dir, filepath.FromSlash(bin)), nil
}

// binPath is the script a package.json's bin names: the string itself,
// or the only command of the object, or the command named after the
// package.
func binPath(name string, raw json.RawMessage) (string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil && one != "" {
		return one, nil
	}
	var many map[string]string
	if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return "", fmt.Errorf("no bin names the server's script")
	}
	if len(many) == 1 {
		for _, p := range many {
			return p, nil
		}
	}
	unscoped := name[strings.LastIndexByte(name, '/')+1:]
	if p, ok := many[unscoped]; ok {
		return p, nil
	}
	cmds := make([]string, 0, len(many))
	for c := range many {
		cmds = append(cmds, c)
	}
	slices.Sort(cmds)
	return "", fmt.Errorf("bin has several commands (%s), none named %q", strings.Join(cmds, ", "), unscoped)
}

// isPin reports whether s is package@version with a package name npm
// could take (an optional @scope/ and one name) and a version that names
// no other directory.
func isPin(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return false
	}
	pkg, version := s[:at], s[at+1:]
	name, scoped := strings.CutPrefix(pkg, "@")
	if scoped {
		scope, rest, ok := strings.Cut(name, "/")
		if !ok || scope == "" || strings.HasPrefix(scope, ".") {
			return false
		}
		name = rest
	}
	return name != "" && !strings.ContainsAny(name, `/\@`) && !strings.HasPrefix(name, ".") &&
		version != "" && !strings.ContainsAny(version, `/\`) && !strings.HasPrefix(version, ".")
}

// Installed returns the Entry of version under cacheDir when it is there,
// else an error that says how to install it. It installs nothing. A
// version that is a pin (package@version, FastFilesystemPin) names that
// package's PinEntry instead.
func Installed(cacheDir, version string) (string, error) {
	if strings.Contains(version, "@") {
		return installedPin(cacheDir, version)
	}
	if version == "" || strings.ContainsAny(version, `/\`) || strings.HasPrefix(version, ".") {
		return "", fmt.Errorf("%s: %q is not a version", Package, version)
	}
	entry := Entry(cacheDir, version)
	if _, err := os.Stat(entry); err != nil {
		return "", fmt.Errorf("%s@%s is not installed in %s (.ci/mcp-install %s installs it): %w", Package, version, cacheDir, version, err)
	}
	return entry, nil
}

// installedPin is Installed for a pin.
func installedPin(cacheDir, pin string) (string, error) {
	if !isPin(pin) {
		return "", fmt.Errorf("%q is not an npm package@version", pin)
	}
	entry, err := PinEntry(cacheDir, pin)
	if err == nil {
		_, err = os.Stat(entry)
	}
	if err != nil {
		return "", fmt.Errorf("%s is not installed in %s (.ci/mcp-install %s installs it): %w", pin, cacheDir, pin, err)
	}
	return entry, nil
}

// InstalledCommand returns the command that runs the installed release
// version (or pin, as Installed takes it): node and its entry under
// DefaultCacheDir. It installs nothing:
// when node or the release is missing, the error says so.
func InstalledCommand(version string) ([]string, error) {
	cache, err := DefaultCacheDir()
	if err != nil {
		return nil, err
	}
	entry, err := Installed(cache, version)
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", entry, err)
	}
	return []string{node, entry}, nil
}
