package gosandbox

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/sbxtest"
)

// FuzzSandboxExplicit is FuzzSandbox in the form go-118-fuzz-build builds
// for ClusterFuzzLite and OSS-Fuzz: it lives in the package itself (not
// gosandbox_test), stands alone in its file, using nothing from another test
// file, and its body is one call into a non-test function.
func FuzzSandboxExplicit(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := sbxtest.CheckInput(sbxtest.Sandbox{Name: "gosandbox", Factory: New}, data); err != nil {
			t.Fatal(err)
		}
	})
}
