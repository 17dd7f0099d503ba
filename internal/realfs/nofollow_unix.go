//go:build unix

package realfs

import "syscall"

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
