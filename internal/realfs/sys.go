package realfs

import (
	"io/fs"
	"syscall"
)

// lstat is syscall.Lstat, retried when a signal interrupts it.
func lstat(p string, st *syscall.Stat_t) error {
	for {
		if err := syscall.Lstat(p, st); err != syscall.EINTR {
			return err
		}
	}
}

// open is syscall.Open, retried when a signal interrupts it.
func open(p string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(p, flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// readlink returns the target of link p, using buf and growing past it
// when the target is longer.
func readlink(p string, buf []byte) (string, error) {
	for {
		n, err := syscall.Readlink(p, buf)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return "", err
		case n < len(buf):
			return string(buf[:n]), nil
		}
		buf = make([]byte, 2*len(buf))
	}
}

// fileMode is the fs.FileMode of a stat's st_mode, as os.Lstat reports it.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
