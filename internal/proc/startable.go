package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"syscall"
)

// Findable returns why program, a command's first word, cannot be found
// as exec finds it (no such file, not executable, not on $PATH), or nil.
func Findable(program string) error {
	_, err := exec.LookPath(program)
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err
	}
	return err
}

// Startable returns why command's program cannot be started at all, or
// nil: it is not found (Findable), or the system cannot run it (an
// interpreter its #! line names that is not there, no #! line and no
// binary: an exec format error). It starts the program as a session
// would, in a network namespace where the machine can make one, and kills
// it at once: only starting tells the last two. Such a program is a
// mistake of whoever named it, not a sandbox that fails a check.
func Startable(command string) error {
	argv, err := splitWords(command)
	if err != nil {
		return fmt.Errorf("%q: %v", command, err)
	}
	if len(argv) == 0 {
		return fmt.Errorf("%q: an empty command", command)
	}
	if err := Findable(argv[0]); err != nil {
		return fmt.Errorf("cannot start %s: %v", argv[0], err)
	}
	c, _, err := startFor(argv, true)
	if err != nil {
		// In a namespace the helper reports the error in words.
		if errors.Is(err, fs.ErrNotExist) || strings.HasSuffix(err.Error(), syscall.ENOENT.Error()) {
			// The program is there (Findable found it): what is missing is
			// what runs it.
			return fmt.Errorf("%w (the interpreter its #! line names is not there?)", err)
		}
		return err // it names the program: "starting P: fork/exec P: exec format error"
	}
	c.kill()
	return nil
}
