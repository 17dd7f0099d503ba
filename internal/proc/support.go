package proc

import (
	"fmt"
	"runtime"
)

// supported is processGroups, as a variable so that a test sees the
// refusal on any system.
var supported = processGroups

// Supported returns nil where a sandbox can run in another process as the
// harness requires — in a process group of its own, killed as a whole so
// that nothing it started outlives the harness — and otherwise why not, in
// words that end "not supported on GOOS".
func Supported() error {
	if !supported {
		return fmt.Errorf("not supported on %s", runtime.GOOS)
	}
	return nil
}
