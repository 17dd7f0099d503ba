package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// CacheEnv names the environment variable that overrides DefaultCacheDir.
const CacheEnv = "SBXFUZZ_NPM_CACHE"

// DefaultCacheDir is where InstallServer's installs live: $SBXFUZZ_NPM_CACHE,
// else sbxfuzz/npm under the user's cache directory.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for npm installs (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(d, "sbxfuzz", "npm"), nil
}

// Entry is the path of the server's script in an install of version
// under cacheDir: run it as node ENTRY DIR...
func Entry(cacheDir, version string) string {
	return filepath.Join(cacheDir, version, "node_modules", filepath.FromSlash(Package), "dist", "index.js")
}

// InstallServer installs version of Package under cacheDir/version with
// npm, unless it is there already, and returns its Entry. The install
// goes to a scratch directory renamed into place when complete, so an
// interrupted one is never taken for an install.
func InstallServer(cacheDir, version string) (entry string, err error) {
	if version == "" || strings.ContainsAny(version, `/\`) || strings.HasPrefix(version, ".") {
		return "", fmt.Errorf("installing %s: %q is not a version", Package, version)
	}
	entry = Entry(cacheDir, version)
	if _, err := os.Stat(entry); err == nil {
		return entry, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("installing %s@%s: %w", Package, version, err)
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", err
	}
	scratch, err := os.MkdirTemp(cacheDir, "."+version+".")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch) // empty after a successful rename
	cmd := exec.Command(npm, "install", "--prefix", scratch, Package+"@"+version, "--no-audit", "--no-fund")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s@%s: %v: %s", Package, version, err, lastLines(string(out), 5))
	}
	err = os.Rename(scratch, filepath.Join(cacheDir, version))
	if _, serr := os.Stat(entry); serr != nil {
		// Another install won the race if the entry is there now.
		return "", errors.Join(fmt.Errorf("installing %s@%s: no %s after npm install", Package, version, entry), err)
	}
	return entry, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}
