//go:build unix

package proc

import (
	"os"
	"syscall"
)

// processGroups says the system has process groups, which a child must
// run in so that killing it also kills whatever it started.
const processGroups = true

// blockingPipe returns a pipe whose ends are in blocking mode, so that
// os.NewFile leaves them out of the runtime's poller. Both ends are
// close-on-exec; holding ForkLock keeps a child started meanwhile from
// inheriting them, as os.Pipe does where pipe2 is missing.
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	syscall.ForkLock.RLock()
	err = syscall.Pipe(fds[:])
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}

// killGroup kills process group pgid.
func killGroup(pgid int) { syscall.Kill(-pgid, syscall.SIGKILL) }
