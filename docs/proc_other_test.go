//go:build !unix

package docs

import "os/exec"

// ownProcessGroup leaves cmd as it is: without process groups,
// cancellation kills the shell alone.
func ownProcessGroup(cmd *exec.Cmd) {}
