//go:build unix

package realfs

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// The flags the walker opens with: noFollow refuses a link in the last
// element of the path and does not wait on a named pipe; onlyDir refuses
// anything but a directory.
const (
	noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	onlyDir  = syscall.O_DIRECTORY
)

// posixDisk says the disk has what a Tree needs: links a walk can refuse
// to follow, permission bits, named pipes.
const posixDisk = true

// heldPath is a path that opens the very file f holds, whatever stands at
// its name by now.
func heldPath(f *os.File) string {
	if runtime.GOOS == "linux" {
		return "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	}
	return "/dev/fd/" + strconv.Itoa(int(f.Fd()))
}
