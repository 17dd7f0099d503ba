package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// modulePath is the module sbxfuzz is built from, whether as the main
// module (go install, go run ./cmd/sbxfuzz) or as a dependency of a
// program built with sbxcli.
const modulePath = "github.com/sbxfuzz/sbxfuzz"

func runVersion(e *env, args []string) int {
	fs := newFlags(e, "version", "", `
Print the version of the sbxfuzz module the program was built from ("devel"
when it was built from a checkout, not from a released module), and the Go
version and platform.`)
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if fs.NArg() > 0 {
		return errorf(e, "version: unexpected argument %q", fs.Arg(0))
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintf(e.stdout, "sbxfuzz %s %s %s/%s\n", moduleVersion(info, ok), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return ExitOK
}

// moduleVersion returns the version of the sbxfuzz module in the build
// information: the main module's, or a dependency's (after any replace
// directive), or "devel" when the module was built from a directory or
// the information is missing.
func moduleVersion(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "devel"
	}
	m := &info.Main
	if m.Path != modulePath {
		m = nil
		for _, d := range info.Deps {
			if d.Path == modulePath {
				m = d
				break
			}
		}
	}
	if m != nil && m.Replace != nil {
		m = m.Replace
	}
	if m == nil || m.Version == "" || m.Version == "(devel)" {
		return "devel"
	}
	return m.Version
}
