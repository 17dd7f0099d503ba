//go:build unix

package realfs

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting. The lock belongs
// to f's open file: another open of the same file, in this process or
// another, cannot take it while f is open, and it is let go of when f is
// closed or its process ends, however it ends.
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}

// pidAlive reports whether a process pid exists (it may belong to another
// user, which only the signal's refusal says).
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
