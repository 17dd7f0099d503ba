package spec_test

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// TestArity: the four op kinds of SPEC §2, as core names them, and their
// arities; any other kind, however close, is unknown.
func TestArity(t *testing.T) {
	for kind, want := range map[string]int{core.OpRead: 1, core.OpWrite: 2, core.OpFetch: 2, core.OpTool: 2} {
		if n, ok := spec.Arity(kind); !ok || n != want {
			t.Errorf("Arity(%q) = %d, %v; want %d, true", kind, n, ok, want)
		}
	}
	for _, kind := range []string{"", "exec", "FS_READ", "fs_read ", "fs_read\x00", "tools"} {
		if n, ok := spec.Arity(kind); ok {
			t.Errorf("Arity(%q) = %d, true; want unknown", kind, n)
		}
	}
}

// TestWellFormed: exactly n arguments, none with a NUL byte or invalid
// UTF-8 (SPEC §5 step 3); empty arguments and any valid text are fine.
func TestWellFormed(t *testing.T) {
	tests := []struct {
		args []string
		n    int
		want bool
	}{
		{[]string{"/work/a"}, 1, true},
		{[]string{""}, 1, true},
		{[]string{"a", "ünïcödé ✓"}, 2, true},
		{nil, 0, true},
		{[]string{"a"}, 2, false},
		{[]string{"a", "b"}, 1, false},
		{[]string{"/work/a\x00"}, 1, false},
		{[]string{"a", "\xff"}, 2, false},
	}
	for _, tt := range tests {
		if got := spec.WellFormed(tt.args, tt.n); got != tt.want {
			t.Errorf("WellFormed(%q, %d) = %v, want %v", tt.args, tt.n, got, tt.want)
		}
	}
}
