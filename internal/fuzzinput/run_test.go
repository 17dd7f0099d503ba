package fuzzinput

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sbxfuzz/sbxfuzz/core"
)

// TestEncodeRunRoundTrip: DecodeRun reads back the step and the ops
// EncodeRun wrote, hostile kinds, arities and bytes included (a string's
// bytes past its length byte are raw, 0xC0 and up too), and every seed
// passes CheckRun.
func TestEncodeRunRoundTrip(t *testing.T) {
	op := func(kind string, args ...string) core.Op { return core.Op{Kind: kind, Args: args} }
	ops := []core.Op{
		op("fs_read", "/work/a"), op("fs_write", "/work/out/x", "d"), op("net_fetch", "api.internal", "/status"),
		op("tool", "echo", "hi"), op("exec", "sh"), op("FS_READ", "/work/a"), op("", "x"), op("fs_read"),
		op("fs_read", "/work/a", "x"), op("fs_write", "/work/out/x", "d", "e"), op("fs_read", "/work/\x00"),
		op("tool", "echo", "\xff"), op("net_fetch", "api.internal", "/\xc0\xaf\xe0\xff"), op("tool", "echo", ""),
	}
	for i := range byte(4) {
		step, got := DecodeRun(EncodeRun(i, ops))
		if step != runSteps[i] {
			t.Errorf("step index %d decodes to clock step %d, want %d", i, step, runSteps[i])
		}
		if diff := cmp.Diff(ops, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step index %d: decoded ops mismatch (-want +got):\n%s", i, diff)
		}
	}
	for i, seed := range RunSeeds() {
		if err := CheckRun(seed); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
	}
}
