package sut

import (
	"errors"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
)

func TestLookup(t *testing.T) {
	mine := Static("mine", func(g core.Grant, w core.World) (core.Sandbox, error) { return nil, nil })
	for _, tc := range []struct {
		name, want, err string
	}{
		{"", Reference, ""},
		{"reference", Reference, ""},
		{"mutant:raw-prefix", "mutant:raw-prefix", ""},
		{"mine", "mine", ""},
		{"mutant:nope", "", `unknown mutant "nope" (known: act-then-check-write,`},
		{"theirs", "", `unknown sandbox "theirs": want "reference", or "mutant:" followed by a mutant name, or "exec:" followed by a command, or "osroot", or "mcp:" followed by an MCP server's command, or "proxy:" followed by an HTTP proxy's command, or "mine"`},
	} {
		got, err := Lookup(tc.name, mine)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Lookup(%q): error %v, want one saying %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got.Name != tc.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tc.name, got.Name, err, tc.want)
			continue
		}
		f, end, err := got.Start()
		if err != nil || f == nil || end() != nil {
			t.Errorf("Lookup(%q).Start() = %v, %v", tc.name, f == nil, err)
		}
	}
}

// TestLookupUnsupported checks that a door the system cannot run is
// refused by Lookup, in one line naming the --sut value and the reason,
// and that the doors in process are not.
func TestLookupUnsupported(t *testing.T) {
	defer func(was struct{ process, disk, network func() error }) { doorSupport = was }(doorSupport)
	noGroups := errors.New("not supported on plan9")
	noDisk := errors.New("not supported on js")
	noNet := errors.New("network namespaces unavailable: unprivileged user namespaces are disabled")
	for _, tc := range []struct {
		reason                 string
		name                   string
		process, disk, network error
		want                   string
	}{
		{"exec: needs process groups", "exec:python3 sb.py", noGroups, nil, nil, "exec:python3 sb.py: not supported on plan9"},
		{"exec: needs no disk", "exec:python3 sb.py", nil, noDisk, noNet, ""},
		{"mcp: needs process groups", "mcp:node server.js", noGroups, nil, nil, "mcp:node server.js: not supported on plan9"},
		{"mcp: needs a POSIX disk", "mcp:node server.js", nil, noDisk, nil, "mcp:node server.js: not supported on js"},
		{"osroot needs a POSIX disk", "osroot", nil, noDisk, nil, "osroot: not supported on js"},
		{"osroot needs no process groups", "osroot", noGroups, nil, noNet, ""},
		{"proxy: needs process groups", "proxy:egressproxy", noGroups, nil, nil, "proxy:egressproxy: not supported on plan9"},
		{"proxy: needs network namespaces", "proxy:egressproxy", nil, nil, noNet, "proxy:egressproxy: " + noNet.Error()},
		{"the reference runs everywhere", "reference", noGroups, noDisk, noNet, ""},
		{"a mutant runs everywhere", "mutant:raw-prefix", noGroups, noDisk, noNet, ""},
	} {
		doorSupport.process = func() error { return tc.process }
		doorSupport.disk = func() error { return tc.disk }
		doorSupport.network = func() error { return tc.network }
		_, err := Lookup(tc.name)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: Lookup(%q): %v, want no error", tc.reason, tc.name, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: Lookup(%q): %v, want %q", tc.reason, tc.name, err, tc.want)
		}
	}
}
