package sbxtest_test

import (
	"fmt"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/sbxtest"
)

// newSandbox stands for your sandbox's constructor: here, the reference.
func newSandbox(g core.Grant, w core.World) (core.Sandbox, error) {
	return core.NewReference(g, w), nil
}

// sandbox describes the sandbox under test once, for every test.
var sandbox = sbxtest.Sandbox{Name: "mine", Factory: newSandbox}

// A native fuzz target in one line, in a _test.go file of your package:
// go test -fuzz FuzzSandbox attacks your sandbox with every attack class.
func ExampleFuzz() {
	_ = func(f *testing.F) { sbxtest.Fuzz(f, sandbox) } // func FuzzSandbox(f *testing.F)
}

// The explicit form, for go-118-fuzz-build (ClusterFuzzLite, OSS-Fuzz):
// the body is one call into a non-test function.
func ExampleCheckInput() {
	_ = func(f *testing.F) { // func FuzzSandbox(f *testing.F)
		f.Fuzz(func(t *testing.T, data []byte) {
			if err := sbxtest.CheckInput(sandbox, data); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The scenarios of a 1,000-check campaign, seed 1; -rapid.checks=N and
// -rapid.seed=S draw others.
func ExampleProperty() {
	_ = func(t *testing.T) { sbxtest.Property(t, sandbox) } // func TestProperty(t *testing.T)
}

// Your committed reproducers replayed as regression tests, one subtest a
// file; a glob that matches nothing fails.
func ExampleReplay() {
	_ = func(t *testing.T) { sbxtest.Replay(t, sandbox, "testdata/*.sbx") } // func TestCorpus(t *testing.T)
}

// CheckInput judges one input by itself: nil when every invariant holds,
// as it does here, where the sandbox denies the prefix sibling.
func ExampleCheckInput_direct() {
	err := sbxtest.CheckInput(sandbox, []byte("# a scenario as text\ngrant fs_read /work/\nfs_read /workshop/secret\n"))
	fmt.Println(err)
	// Output: <nil>
}

// TestReferencePasses runs the three entry points on the reference: they
// must pass on a correct sandbox.
func TestReferencePasses(t *testing.T) {
	if err := sbxtest.CheckInput(sandbox, []byte("# x\ngrant fs_read /work/\nfile /workshop/s x\nfs_read /workshop/s\n")); err != nil {
		t.Fatal(err)
	}
	sbxtest.Property(t, sandbox)
}
