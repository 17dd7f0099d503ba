//go:build !unix

package sbxtest

import "os/exec"

// ownProcessGroup does nothing where there are no process groups: the
// test that uses it needs sh, and skips without it.
func ownProcessGroup(*exec.Cmd) {}
