package scenario

import "github.com/sbxfuzz/sbxfuzz/core"

// ParseKind returns the core.Kind whose SPEC §2 name is s, such as
// "fs_read_denied", and false when s names none ("invalid" names no
// verdict): the kind after "=>" in a .sbx file.
func ParseKind(s string) (core.Kind, bool) {
	for k := core.OK; k < core.NumKinds; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return core.Invalid, false
}
