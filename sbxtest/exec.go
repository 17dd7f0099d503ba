package sbxtest

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
)

// Exec returns a factory for the sandbox that command runs in another
// process, in any language, speaking the sbxfuzz/1 protocol (SPEC §12) on
// its stdin and stdout, and the function that stops it. command is split
// into words as a shell would, without a shell. One child serves every
// scenario, a fresh one after a failure; a child that exits, breaks the
// protocol or hangs is a total finding. Call stop when done (t.Cleanup):
//
//	f, stop, err := sbxtest.Exec("python3 sandbox.py")
//	if err != nil {
//		t.Fatal(err)
//	}
//	t.Cleanup(stop)
//	sbxtest.Replay(t, sbxtest.Sandbox{Name: "python", Factory: f}, "testdata/*.sbx")
//
// The factory is for one goroutine at a time, as Fuzz, Property and Replay
// use it: tests that run in parallel (t.Parallel) each need an Exec of
// their own, for a child holds one sandbox at a time. Exec returns an
// error for a command whose program cannot be started at all (not found,
// not executable, an interpreter its #! line names missing), a mistake of
// the test rather than a finding on the sandbox (it starts the program
// once to know, and kills it); and, where the system has no process groups to kill a child's
// own children with (Windows), one saying it is not supported there.
func Exec(command string) (f core.Factory, stop func(), err error) {
	start, err := proc.Sessions(command)
	if err != nil {
		return nil, nil, err
	}
	if err := proc.Startable(command); err != nil {
		return nil, nil, err
	}
	f, end, err := start()
	if err != nil {
		return nil, nil, err
	}
	return f, func() { end() }, nil
}
