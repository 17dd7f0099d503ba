package gosandbox_test

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/examples/gosandbox"
	"github.com/sbxfuzz/sbxfuzz/sbxtest"
)

// sandbox is the sandbox under test, described once for the three tests.
// Command is how a reproducer is replayed with the sbxfuzz command line
// (from this directory, where go test runs).
var sandbox = sbxtest.Sandbox{
	Name:    "gosandbox",
	Factory: gosandbox.New,
	Command: "go run ./cmd/gosandbox-sbxfuzz",
}

// FuzzSandbox is the native fuzz target: go test -fuzz FuzzSandbox.
func FuzzSandbox(f *testing.F) { sbxtest.Fuzz(f, sandbox) }

// TestProperty draws hostile scenarios of every attack class with rapid.
func TestProperty(t *testing.T) { sbxtest.Property(t, sandbox) }

// TestCorpus replays the committed reproducers in testdata/.
func TestCorpus(t *testing.T) { sbxtest.Replay(t, sandbox, "testdata/*.sbx") }
