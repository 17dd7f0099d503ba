//go:build !unix

package realfs

import (
	"errors"
	"os"
)

// tryLock never locks here: no run directory is made on such a system
// (see Supported).
func tryLock(*os.File) error { return errors.ErrUnsupported }

// pidAlive says every process is alive, so that nothing is removed.
func pidAlive(int) bool { return true }
