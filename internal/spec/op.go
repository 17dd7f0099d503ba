package spec

import (
	"strings"
	"unicode/utf8"
)

// MaxLinks is how many links one resolution may follow (SPEC §13, Linux's
// MAXSYMLINKS): following the 41st is a loop.
const MaxLinks = 40

// Arity returns the number of arguments the op kind takes (SPEC §2), and
// false for a kind that is none of the four. The kinds are core's OpRead,
// OpWrite, OpFetch and OpTool, spelled out here because core imports this
// package.
func Arity(kind string) (int, bool) {
	switch kind {
	case "fs_read":
		return 1, true
	case "fs_write", "net_fetch", "tool":
		return 2, true
	}
	return 0, false
}

// WellFormed reports whether args has exactly n arguments, none with a NUL
// byte or invalid UTF-8 (SPEC §5 step 3).
func WellFormed(args []string, n int) bool {
	if len(args) != n {
		return false
	}
	for _, a := range args {
		if strings.IndexByte(a, 0) >= 0 || !utf8.ValidString(a) {
			return false
		}
	}
	return true
}
