package proc

import (
	"os"
	"syscall"
)

// blockingPipe returns a pipe whose ends are in blocking mode, so that
// os.NewFile leaves them out of the runtime's poller.
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}
