package outside_test

import (
	"fmt"
	"os"
	"testing"

	"example.com/outside"
	"github.com/sbxfuzz/sbxfuzz/sbxtest"
)

// variantEnv names the variant the tests judge instead of the sandbox:
// TestVariantsCaught runs this test binary with it set.
const variantEnv = "OUTSIDE_VARIANT"

// sandbox is the sandbox under test, described once for the three tests.
// Command is how a reproducer is replayed with this module's own sbxfuzz
// command, written as it runs from the module root.
var sandbox = underTest(os.Getenv(variantEnv))

// underTest is the sandbox, or the variant named.
func underTest(name string) sbxtest.Sandbox {
	sb := sbxtest.Sandbox{Name: "outside", Factory: outside.New, Command: "go run ./cmd/outside-sbxfuzz"}
	if name == "" {
		return sb
	}
	for _, v := range outside.Variants() {
		if v.Name == name {
			sb.Name, sb.Factory = "outside-"+v.Name, v.Factory
			return sb
		}
	}
	panic(fmt.Sprintf("%s=%s: no such variant", variantEnv, name))
}

// FuzzSandbox is the native fuzz target (go test -fuzz FuzzSandbox); a
// plain go test runs its seeds: every scenario of sbxfuzz's corpus.
func FuzzSandbox(f *testing.F) { sbxtest.Fuzz(f, sandbox) }

// TestProperty judges the scenarios of a 1,000-check campaign.
func TestProperty(t *testing.T) { sbxtest.Property(t, sandbox) }

// TestCorpus replays this module's reproducers: findings of the variants,
// which the sandbox must pass.
func TestCorpus(t *testing.T) { sbxtest.Replay(t, sandbox, "testdata/*.sbx") }
