package gosandbox_test

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/examples/gosandbox"
	"github.com/sbxfuzz/sbxfuzz/sbxtest"
)

// FuzzSandboxExplicit is FuzzSandbox in the form go-118-fuzz-build builds
// for ClusterFuzzLite and OSS-Fuzz: it stands alone in its file, using
// nothing from another test file, and its body is one call into a non-test
// function.
func FuzzSandboxExplicit(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := sbxtest.CheckInput(sbxtest.Sandbox{Name: "gosandbox", Factory: gosandbox.New}, data); err != nil {
			t.Fatal(err)
		}
	})
}
