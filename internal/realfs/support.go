package realfs

import (
	"fmt"
	"runtime"
)

// supported is posixDisk, as a variable so that a test sees the refusal
// on any system.
var supported = posixDisk

// Supported returns nil where a world can be materialized and observed,
// and otherwise why not, in words that end "not supported on GOOS": the
// real-disk doors need a POSIX disk, whose links a walk can refuse to
// follow.
func Supported() error {
	if !supported {
		return fmt.Errorf("not supported on %s", runtime.GOOS)
	}
	return nil
}
