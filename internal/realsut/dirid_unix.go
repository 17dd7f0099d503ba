//go:build unix

package realsut

import (
	"os"
	"strconv"
	"syscall"
)

// dirID names the directory fi describes by its device and inode: the
// same path made anew is another directory, which a server holding the
// old one (a bind mount, a Landlock rule, an open handle) does not see.
func dirID(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
	}
	return ""
}
