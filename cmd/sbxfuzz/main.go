// Command sbxfuzz is an adversarial, property-based fuzzing harness for
// capability sandboxes: it runs campaigns of hostile op sequences against a
// sandbox, checks every invariant of its contract after every op, and keeps
// what it finds as readable .sbx scenarios. Run 'sbxfuzz help' for the
// commands.
package main

import (
	"os"

	"github.com/sbxfuzz/sbxfuzz/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
