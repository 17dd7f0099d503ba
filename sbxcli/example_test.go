package sbxcli_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/sbxcli"
)

// newSandbox stands for your sandbox's constructor: here, the reference.
func newSandbox(g core.Grant, w core.World) (core.Sandbox, error) {
	return core.NewReference(g, w), nil
}

// A cmd/sbxfuzz/main.go of your own: every sbxfuzz command, with your
// sandbox as --sut mine.
func ExampleMain() {
	main := func() { sbxcli.Main(map[string]core.Factory{"mine": newSandbox}) }
	_ = main
}

// A program run from its module's root with go run says so: every
// reproduce line it prints starts with these words.
func ExampleCommand() {
	main := func() {
		sbxcli.Main(map[string]core.Factory{"mine": newSandbox}, sbxcli.Command("go run ./cmd/mysbx"))
	}
	_ = main
}

// Run is the command line without the exit: here it replays a reproducer
// on the registered sandbox, which passes it (exit status 0).
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "sbxcli")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "prefix.sbx")
	os.WriteFile(file, []byte("grant fs_read /work\nfs_read /works => fs_read_denied\n"), 0o644)
	status := sbxcli.Run([]string{"replay", "--sut", "mine", file}, io.Discard, os.Stderr,
		map[string]core.Factory{"mine": newSandbox})
	fmt.Println("exit status", status)
	// Output: exit status 0
}

// A name taken by a built-in sandbox is refused, with exit status 2.
func ExampleRun_shadowing() {
	status := sbxcli.Run([]string{"replay", "x.sbx"}, io.Discard, io.Discard,
		map[string]core.Factory{"reference": newSandbox})
	fmt.Println("exit status", status)
	// Output: exit status 2
}
