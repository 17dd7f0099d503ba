package cli

import (
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

func runServe(e *env, args []string) int {
	fs := newFlags(e, "serve", "[--sut reference|mutant:NAME|NAME]", `
Serve a Go sandbox over the sbxfuzz/1 process protocol (docs/SPEC.md §12) on
stdin and stdout: the harness opens a sandbox for each scenario and sends ops; every
effect the sandbox makes is a world request back to the harness. This is the
protocol's reference server: sbxfuzz run --sut "exec:sbxfuzz serve" judges the
reference through the pipe. Exit 0 after shutdown, 2 when the harness breaks
the protocol.`)
	sutName := fs.String("sut", sut.Reference, `the sandbox to serve: "reference", "mutant:NAME", or a name the program registered`)
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if fs.NArg() > 0 {
		return errorf(e, "serve: unexpected argument %q", fs.Arg(0))
	}
	if strings.HasPrefix(*sutName, sut.ExecPrefix) {
		return errorf(e, "serve: --sut %q: serve Go sandboxes only", *sutName)
	}
	target, err := e.target(*sutName)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	f, end, err := target.Start()
	if err != nil {
		return errorf(e, "%v", err)
	}
	defer end()
	if err := proc.Serve(e.stdin, e.stdout, "sbxfuzz serve "+target.Name, f); err != nil {
		return errorf(e, "serve: %v", err)
	}
	return ExitOK
}
