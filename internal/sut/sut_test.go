package sut

import (
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
		{"theirs", "", `unknown sandbox "theirs": want "reference", or "mutant:" followed by a mutant name, or "exec:" followed by a command, or "osroot", or "mcp:" followed by an MCP server's command, or "mine"`},
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
