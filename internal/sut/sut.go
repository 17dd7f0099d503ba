// Package sut is the registry of sandboxes under test: it turns a --sut
// value (or SBXFUZZ_SUT, or a user's own factory) into a Target the harness
// starts sessions of: "reference", "mutant:NAME", "exec:COMMAND" (a
// sandbox in another process, SPEC §12), and sandboxes a program registers
// by name (sbxcli.Main).
package sut

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
)

// Reference is the name of the reference sandbox.
const Reference = "reference"

// MutantPrefix starts the name of every mutant: "mutant:raw-prefix".
const MutantPrefix = "mutant:"

// ExecPrefix starts the name of a sandbox in another process, speaking
// sbxfuzz/1 (SPEC §12): "exec:python3 sandbox.py".
const ExecPrefix = "exec:"

// EnvVar names the environment variable the fuzz targets read the sandbox
// under test from.
const EnvVar = "SBXFUZZ_SUT"

// Target is a sandbox under test as the harness starts it (see
// door.Target). Its type lives in package door, below both this registry
// and package realsut, so that the real-disk doors build it directly
// (realsut.Adapter.Target).
type Target = door.Target

// Narrowed is a scenario as a Target can be asked it (see door.Narrowed).
type Narrowed = door.Narrowed

// OSRoot is the name of the os.Root sandbox for real files (SPEC §13).
const OSRoot = realsut.OSRootName

// Static is the Target of an in-process factory f, which must be safe to
// call from several goroutines at once (each call builds a new sandbox).
func Static(name string, f core.Factory) Target {
	return Target{Name: name, Start: func() (core.Factory, func() error, error) {
		return f, func() error { return nil }, nil
	}}
}

// Lookup returns the Target named by a --sut value: the empty name and
// "reference" are the reference, "mutant:NAME" a mutant, and any other name
// one of extra by its Name. A door the system cannot run (exec:, mcp: and
// osroot need process groups or a POSIX disk, which Windows lacks) is an
// error of one line: "exec:COMMAND: not supported on windows".
func Lookup(name string, extra ...Target) (Target, error) {
	return LookupWith(name, Options{}, extra...)
}

// Options say what a command chose for the doors beyond the --sut value.
type Options struct {
	// TreeDir is where the real-disk doors (osroot, mcp:) make their
	// trees; empty is realfs.DefaultTreeDir().
	TreeDir string
	// Timeouts bound each op and each start of a sandbox the real-disk
	// doors talk to (the command's --timeout and --start-timeout); zero
	// fields are the door's defaults.
	Timeouts realsut.Timeouts
	// Profile is the mcp: or proxy: door's profile, a built-in name or a
	// JSON file (--profile); empty is $SBXFUZZ_MCP_PROFILE, else
	// server-filesystem's, for mcp:, and $SBXFUZZ_PROXY_PROFILE, else
	// egressproxy's, for proxy:.
	Profile string
}

// LookupWith is Lookup with the command's Options applied to the door.
func LookupWith(name string, o Options, extra ...Target) (Target, error) {
	switch {
	case name == "" || name == Reference:
		return Static(Reference, core.ReferenceFactory), nil
	case strings.HasPrefix(name, MutantPrefix):
		short := strings.TrimPrefix(name, MutantPrefix)
		if m, ok := mutants.Lookup(short); ok {
			return Static(name, m.Factory), nil
		}
		return Target{}, fmt.Errorf("unknown mutant %q (known: %s)", short, strings.Join(mutants.Names(), ", "))
	case name == OSRoot:
		if err := supported(name, doorSupport.disk); err != nil {
			return Target{}, err
		}
		a := realsut.OSRoot
		a.TreeDir, a.Timeouts = o.TreeDir, o.Timeouts
		return a.Target(), nil
	case strings.HasPrefix(name, realsut.MCPPrefix):
		if err := supported(name, doorSupport.process, doorSupport.disk); err != nil {
			return Target{}, err
		}
		profile := o.Profile
		if profile == "" {
			profile = os.Getenv(realsut.ProfileEnv)
		}
		if err := knownMCPProfile(profile); err != nil {
			return Target{}, fmt.Errorf("%s %v", realsut.MCPPrefix, err)
		}
		if p, ok, err := proxysut.LoadServerProfile(profile); ok {
			if err != nil {
				return Target{}, fmt.Errorf("%s %v", realsut.MCPPrefix, err)
			}
			return lookupFetchServer(name, profile, p, o)
		}
		p, err := realsut.LoadProfile(profile)
		if err != nil {
			return Target{}, fmt.Errorf("%s %v", realsut.MCPPrefix, err)
		}
		a, err := realsut.MCPWithProfile(strings.TrimPrefix(name, realsut.MCPPrefix), p)
		if err != nil {
			return Target{}, fmt.Errorf("%s %v", realsut.MCPPrefix, err)
		}
		if err := startable(name, strings.TrimPrefix(name, realsut.MCPPrefix), p.Command...); err != nil {
			return Target{}, err
		}
		a.TreeDir, a.Timeouts = o.TreeDir, o.Timeouts
		flags, err := profileFlags(profile)
		if err != nil {
			return Target{}, err
		}
		t := a.Target()
		t.Flags = flags
		return t, nil
	case strings.HasPrefix(name, proxysut.Prefix):
		return lookupProxy(name, o)
	case strings.HasPrefix(name, ExecPrefix):
		if err := supported(name, doorSupport.process); err != nil {
			return Target{}, err
		}
		command := strings.TrimPrefix(name, ExecPrefix)
		if argv, err := proc.SplitWords(command); err == nil {
			// The child runs here, but a finding's reproduce line is run
			// from anywhere: its relative program and script are named
			// by their absolute paths, as an mcp: server's are.
			command = finding.CommandName(command, argv, proc.Anchored(argv))
		}
		counted, err := proc.CountedSessions(command)
		if err != nil {
			return Target{}, fmt.Errorf("%s: %v", ExecPrefix, err)
		}
		// A sandbox of the exec: door starts with its first scenario: a
		// program the system cannot run (an interpreter its #! line names
		// missing, no #! line) would be a total finding on every check.
		if err := proc.Startable(command); err != nil {
			return Target{}, fmt.Errorf("%s: %v", name, err)
		}
		start, err := proc.Sessions(command)
		if err != nil {
			return Target{}, fmt.Errorf("%s: %v", ExecPrefix, err)
		}
		return Target{Name: ExecPrefix + command, Start: start, StartCounted: counted}, nil
	}
	for _, t := range extra {
		if t.Name == name {
			return t, nil
		}
	}
	known := []string{fmt.Sprintf("%q", Reference), fmt.Sprintf("%q followed by a mutant name", MutantPrefix), fmt.Sprintf("%q followed by a command", ExecPrefix), fmt.Sprintf("%q", OSRoot), fmt.Sprintf("%q followed by an MCP server's command", realsut.MCPPrefix), fmt.Sprintf("%q followed by an HTTP proxy's command", proxysut.Prefix)}
	for _, t := range extra {
		known = append(known, fmt.Sprintf("%q", t.Name))
	}
	return Target{}, fmt.Errorf("unknown sandbox %q: want %s", name, strings.Join(known, ", or "))
}

// lookupProxy is the Target of "proxy:COMMAND" (SPEC §14): an HTTP
// forward proxy in a network namespace of its own, configured by
// o.Profile, else $SBXFUZZ_PROXY_PROFILE, else the egressproxy profile.
// Where namespaces are unavailable the error says so in one line.
func lookupProxy(name string, o Options) (Target, error) {
	command := strings.TrimPrefix(name, proxysut.Prefix)
	if err := supported(name, doorSupport.process, doorSupport.network); err != nil {
		return Target{}, err
	}
	profile := o.Profile
	if profile == "" {
		profile = os.Getenv(proxysut.ProfileEnv)
	}
	var prefix []string // the profile's command words ("python3"), which start the proxy
	if p, err := proxysut.LoadProfile(profile); err == nil {
		prefix = p.Command
	}
	if err := startable(name, command, prefix...); err != nil {
		return Target{}, err
	}
	t, err := proxysut.Target(command, profile, proxysut.Timeouts{Op: o.Timeouts.Op, Start: o.Timeouts.Start})
	if err != nil {
		return Target{}, fmt.Errorf("%s: %v", name, err)
	}
	return t, nil
}

// knownMCPProfile says what is wrong with an mcp: door's --profile value
// that names neither a file nor one of the door's built-in profiles,
// listing them, or nil.
func knownMCPProfile(profile string) error {
	if _, ok := mcp.LookupProfile(profile); ok || profile == "" || slices.Contains(proxysut.ServerNames(), profile) {
		return nil
	}
	if _, err := os.Stat(profile); !errors.Is(err, fs.ErrNotExist) {
		return nil // a file, or one whose trouble reading it says
	}
	if slices.Contains(proxysut.BuiltinNames(), profile) {
		return fmt.Errorf("profile %s is a proxy's: give --sut %sCOMMAND", profile, proxysut.Prefix)
	}
	return fmt.Errorf("profile %s: no such file, nor a built-in profile of the mcp: door (file servers: %s; fetch servers: %s)",
		profile, strings.Join(mcp.BuiltinNames(), ", "), strings.Join(proxysut.ServerNames(), ", "))
}

// lookupFetchServer is the Target of "mcp:COMMAND" when its profile p
// (read from the --profile value profile) is a fetch server's (SPEC §14):
// the server runs in a network namespace of its own and is judged on the
// connections it opens.
func lookupFetchServer(name, profile string, p proxysut.Profile, o Options) (Target, error) {
	command := strings.TrimPrefix(name, realsut.MCPPrefix)
	if err := supported(name, doorSupport.process, doorSupport.network); err != nil {
		return Target{}, err
	}
	if err := startable(name, command, p.Command...); err != nil {
		return Target{}, err
	}
	t, err := proxysut.ServerTarget(command, profile, p, proxysut.Timeouts{Op: o.Timeouts.Op, Start: o.Timeouts.Start})
	if err != nil {
		return Target{}, fmt.Errorf("%s: %v", name, err)
	}
	return t, nil
}

// profileFlags are the flags that choose profile again in a replay: none
// for the default, a built-in profile by its name, a file by its absolute
// path (a replay may run from another directory, and without
// $SBXFUZZ_MCP_PROFILE).
func profileFlags(profile string) ([]string, error) {
	if profile == "" || profile == mcp.Filesystem.Name {
		return nil, nil
	}
	if _, ok := mcp.LookupProfile(profile); ok {
		return []string{"--profile", profile}, nil
	}
	abs, err := filepath.Abs(profile)
	if err != nil {
		return nil, fmt.Errorf("%s profile %s: %v", realsut.MCPPrefix, profile, err)
	}
	return []string{"--profile", abs}, nil
}

// doorSupport holds what the doors beyond Go's reach need of the system:
// process groups (exec:, mcp:, proxy:), a POSIX disk (osroot, mcp:) and
// network namespaces (proxy:). A variable so that a test sees the
// refusals on any system.
var doorSupport = struct{ process, disk, network func() error }{proc.Supported, realfs.Supported, netns.Supported}

// supported returns the first refusal of checks, prefixed with the --sut
// value name: "exec:python3 sb.py: not supported on windows".
func supported(name string, checks ...func() error) error {
	for _, check := range checks {
		if err := check(); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	return nil
}

// startable refuses a command whose program cannot be started at all (no
// such file, not executable, not on $PATH), as exec would find it: the
// sandbox could not be set up, a mistake of the command line (exit 2), not
// a sandbox that failed a check. The --sut value name leads the error.
func startable(name, command string, prefix ...string) error {
	argv, err := proc.SplitWords(command)
	if err != nil || len(argv) == 0 {
		return nil // the door's own parse says what is wrong
	}
	argv = slices.Concat(prefix, argv) // a profile's command words come first: ["node"]
	if err := proc.Findable(argv[0]); err != nil {
		return fmt.Errorf("%s: cannot start %s: %v", name, argv[0], err)
	}
	return nil
}
