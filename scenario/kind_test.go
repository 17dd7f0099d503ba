package scenario

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// TestParseKind: every verdict's name reads back as that verdict; the zero
// Kind's name, other spellings and names out of range read as none.
func TestParseKind(t *testing.T) {
	for k := core.OK; k < core.NumKinds; k++ {
		if got, ok := ParseKind(k.String()); !ok || got != k {
			t.Errorf("ParseKind(%q) = %v, %v; want %v, true", k.String(), got, ok, k)
		}
	}
	for _, s := range []string{"invalid", "", "OK", "fs_read_denied ", "max_ops\x00", "denied"} {
		if got, ok := ParseKind(s); ok || got != core.Invalid {
			t.Errorf("ParseKind(%q) = %v, %v; want invalid, false", s, got, ok)
		}
	}
}
