//go:build !unix

package realfs

import "os"

// The walker's flags have no equivalent here, and none is needed: no Tree
// is built on such a system (see Supported), so nothing is walked.
const (
	noFollow = 0
	onlyDir  = 0
)

// posixDisk says the disk lacks what a Tree needs: a link the walker's
// opens could refuse to follow, POSIX permission bits, named pipes.
const posixDisk = false

// heldPath has nothing to name here: the caller opens by name.
func heldPath(*os.File) string { return "" }
