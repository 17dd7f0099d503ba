package realsut

import (
	"os"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

// TestMain keeps the trees of the tests that name no tree directory out of
// the user's cache: in a directory of the test binary's own, removed at the
// end.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "realsut-trees-")
	if err != nil {
		panic(err)
	}
	os.Setenv(realfs.TreeDirEnv, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
