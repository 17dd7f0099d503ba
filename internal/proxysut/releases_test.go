package proxysut

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInstallScriptReadsThePins: .ci/proxy-install installs the releases
// pinned here, read from this package's constants.
func TestInstallScriptReadsThePins(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("reading the install script's pins needs bash: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bash, filepath.Join("..", "..", ".ci", "proxy-install"), "--pins").CombinedOutput()
	if err != nil {
		t.Fatalf(".ci/proxy-install --pins: %v\n%s", err, out)
	}
	want := "smokescreen " + SmokescreenPin + "\ntinyproxy " + TinyproxyVersion + "\nsquid " + SquidVersion + "\ntrafficserver " + TrafficServerVersion + "\n"
	if string(out) != want {
		t.Errorf(".ci/proxy-install --pins printed\n%s\nwant\n%s", out, want)
	}
}

// TestInstalledProxy: smokescreen is looked for in the cache directory
// the install script builds it into; a proxy that is not there, or not a
// real proxy's name, is an error that says so.
func TestInstalledProxy(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(CacheEnv, cache)
	if got, want := smokescreenPath(cache), filepath.Join(cache, "smokescreen@v0.1.0", "smokescreen"); got != want {
		t.Errorf("smokescreenPath = %q, want %q", got, want)
	}
	if _, err := InstalledProxy("smokescreen"); err == nil || !strings.Contains(err.Error(), ".ci/proxy-install") {
		t.Errorf("smokescreen missing from an empty cache: %v, want an error naming .ci/proxy-install", err)
	}
	if _, err := InstalledProxy("egressproxy"); err == nil {
		t.Error("InstalledProxy(egressproxy): no error")
	}
}
