package realfs

import (
	"runtime"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestMaterializeUnsupported checks that a system without a POSIX disk is
// refused in one line that names it, before anything is built.
func TestMaterializeUnsupported(t *testing.T) {
	defer func(was bool) { supported = was }(supported)
	supported = false
	dir := t.TempDir() + "/base"
	_, err := Materialize(dir, scenario.WorldSpec{Files: []scenario.File{{Path: "/work/a", Data: "x"}}}, core.GrantSpec{FSRead: []string{"/work/"}}, nil)
	want := "not supported on " + runtime.GOOS
	if err == nil || !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Materialize on an unsupported system: %v; want one line ending %q", err, want)
	}
	if err := Supported(); err == nil || err.Error() != want {
		t.Errorf("Supported() = %v, want %q", err, want)
	}
}
