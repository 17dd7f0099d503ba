package proxysut

// This file pins the releases of the real proxies with a built-in
// profile and finds where .ci/proxy-install put them; installing them is
// that script's job alone, so that neither go test nor the harness
// fetches anything. The script reads the pins from the constants below,
// one a line (TestInstallScriptReadsThePins).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
)

// The releases the built-in profiles of real proxies were written from
// and are tested on: smokescreen as go install takes it, tinyproxy and
// squid by their upstream versions, Traffic Server by its upstream
// release series (Debian bookworm's packages; the Debian revision moves
// with security updates, the profile does not, and Debian's security
// updates move Traffic Server's patch release too).
const (
	SmokescreenPin       = "github.com/stripe/smokescreen@v0.1.0"
	TinyproxyVersion     = "1.11.1"
	SquidVersion         = "5.7"
	TrafficServerVersion = "9.2"
)

// TestEnv names the environment variable that turns on the tests that
// run the real proxies (SBXFUZZ_TEST_PROXIES=1), once .ci/proxy-install
// has installed them; without it they skip.
const TestEnv = "SBXFUZZ_TEST_PROXIES"

// CacheEnv names the environment variable that says where
// .ci/proxy-install builds the proxies it builds (smokescreen) and
// InstalledProxy looks for them; unset, sbxfuzz/proxies under the user's
// cache directory.
const CacheEnv = "SBXFUZZ_PROXY_CACHE"

// defaultCacheDir is where .ci/proxy-install puts the proxies it builds
// (smokescreen): $SBXFUZZ_PROXY_CACHE, else sbxfuzz/proxies under the
// user's cache directory.
func defaultCacheDir() (string, error) { return fsutil.CacheDir(CacheEnv, "proxies", "the proxies") }

// smokescreenPath is where .ci/proxy-install builds SmokescreenPin under
// cacheDir: a directory named after the pin's last element.
func smokescreenPath(cacheDir string) string {
	return filepath.Join(cacheDir, filepath.Base(SmokescreenPin), "smokescreen")
}

// InstalledProxy returns the path of the pinned release of the real proxy
// the built-in profile name runs ("smokescreen", "tinyproxy", "squid",
// "trafficserver"),
// or of the MCP fetch server's script ("mcp-fetch-server", ...),
// or an error that says what is missing and how to install it. It
// installs nothing. A proxy of another version than the pin is an error
// too: its profile was written for the pin.
func InstalledProxy(name string) (string, error) {
	if pin, ok := serverPins[name]; ok {
		cache, err := mcp.DefaultCacheDir()
		if err != nil {
			return "", err
		}
		return mcp.Installed(cache, pin)
	}
	switch name {
	case "smokescreen":
		cache, err := defaultCacheDir()
		if err != nil {
			return "", err
		}
		return checkVersion(smokescreenPath(cache), "smokescreen version "+SmokescreenPin[strings.LastIndexByte(SmokescreenPin, '@')+1:], "--version")
	case "tinyproxy":
		return checkVersion(systemPath("tinyproxy"), "tinyproxy "+TinyproxyVersion, "-v")
	case "squid":
		return checkVersion(systemPath("squid"), "Version "+SquidVersion, "-v")
	case "trafficserver":
		return checkVersion(systemPath("traffic_server"), "Traffic Server "+TrafficServerVersion+".", "-V")
	}
	return "", fmt.Errorf("%q: no real proxy of that name", name)
}

// serverPins are the npm releases (mcp's pins, which .ci/mcp-install
// installs) the built-in profiles of MCP fetch servers were written from,
// by profile name. Their path is the script the profile runs with node.
var serverPins = map[string]string{
	"mcp-fetch-server":  mcp.MCPFetchServerPin,
	"kazuph-mcp-fetch":  mcp.KazuphMCPFetchPin,
	"mcp-npx-fetch":     mcp.MCPNpxFetchPin,
	"server-everything": mcp.ServerEverythingPin,
}

// systemPath is name on PATH, else in /usr/sbin, where Debian installs
// daemons (not on an ordinary user's PATH).
func systemPath(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return filepath.Join("/usr/sbin", name)
}

// checkVersion returns bin when running it with flag prints want on its
// first line.
func checkVersion(bin, want, flag string) (string, error) {
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%s is not installed (.ci/proxy-install installs it): %w", filepath.Base(bin), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, flag).Output()
	first, _, _ := bytes.Cut(out, []byte("\n"))
	if err != nil || !bytes.Contains(first, []byte(want)) {
		return "", fmt.Errorf("%s %s: %q, %v: not the pinned release (want %q)", bin, flag, first, err, want)
	}
	return bin, nil
}
