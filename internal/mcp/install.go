package mcp

import (
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

// TestEnv names the environment variable that turns on the tests that run
// the pinned releases (SBXFUZZ_TEST_NPM=1), once .ci/mcp-install has put
// them into DefaultCacheDir; without it they skip. Nothing in this module
// installs them: go test must neither fill a user's caches nor need the
// network.
const TestEnv = "SBXFUZZ_TEST_NPM"

// DefaultCacheDir is where .ci/mcp-install puts the releases, and where
// the harness looks for them: $SBXFUZZ_NPM_CACHE, else sbxfuzz/npm under
// the user's cache directory.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the npm installs (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(d, "sbxfuzz", "npm"), nil
}

// Entry is the path of the server's script in an install of version
// under cacheDir: run it as node ENTRY DIR...
func Entry(cacheDir, version string) string {
	return filepath.Join(cacheDir, version, "node_modules", filepath.FromSlash(Package), "dist", "index.js")
}

// Installed returns the Entry of version under cacheDir when it is there,
// else an error that says how to install it. It installs nothing.
func Installed(cacheDir, version string) (string, error) {
	if version == "" || strings.ContainsAny(version, `/\`) || strings.HasPrefix(version, ".") {
		return "", fmt.Errorf("%s: %q is not a version", Package, version)
	}
	entry := Entry(cacheDir, version)
	if _, err := os.Stat(entry); err != nil {
		return "", fmt.Errorf("%s@%s is not installed in %s (.ci/mcp-install %s installs it): %w", Package, version, cacheDir, version, err)
	}
	return entry, nil
}

// InstalledCommand returns the command that runs the installed release
// version: node and its Entry under DefaultCacheDir. It installs nothing:
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
		return nil, fmt.Errorf("running %s@%s: %w", Package, version, err)
	}
	return []string{node, entry}, nil
}
