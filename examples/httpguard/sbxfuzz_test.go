package httpguard_test

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/examples/httpguard"
	"github.com/sbxfuzz/sbxfuzz/sbxtest"
)

// sandbox is the sandbox under test, described once for the three tests.
// Command is how a reproducer is replayed with the sbxfuzz command line,
// written as it runs from the module root (this repository's: a copy in a
// module of its own writes ./cmd/httpguard-sbxfuzz).
var sandbox = sbxtest.Sandbox{
	Name:    "httpguard",
	Factory: httpguard.New,
	Command: "go run ./examples/httpguard/cmd/httpguard-sbxfuzz",
}

// FuzzSandbox is the native fuzz target: go test -fuzz FuzzSandbox.
func FuzzSandbox(f *testing.F) { sbxtest.Fuzz(f, sandbox) }

// TestProperty judges the scenarios of a 1,000-check campaign, every attack class.
func TestProperty(t *testing.T) { sbxtest.Property(t, sandbox) }

// TestCorpus replays the committed reproducers in testdata/.
func TestCorpus(t *testing.T) { sbxtest.Replay(t, sandbox, "testdata/*.sbx") }
