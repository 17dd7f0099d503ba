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
// use it. Where the system has no process groups to kill a child's own
// children with (Windows), Exec returns an error saying it is not
// supported there.
func Exec(command string) (f core.Factory, stop func(), err error) {
	start, err := proc.Sessions(command)
	if err != nil {
		return nil, nil, err
	}
	f, end, err := start()
	if err != nil {
		return nil, nil, err
	}
	return f, func() { end() }, nil
}
