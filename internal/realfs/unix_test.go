//go:build unix

package realfs

import "syscall"

// syscallENOTDIR is what Lstat answers below a file.
const syscallENOTDIR = syscall.ENOTDIR

// setUmask sets the process's umask and returns the old one.
func setUmask(m int) int { return syscall.Umask(m) }
