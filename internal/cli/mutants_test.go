package cli

import (
	"slices"
	"testing"
)

// TestCommandsAreNeverPatterns: a --sut item of a door that runs a
// command is that command, whatever glob characters its words hold (a
// shell would not expand them either); only a name is a pattern.
func TestCommandsAreNeverPatterns(t *testing.T) {
	e := &env{}
	for _, item := range []string{
		"exec:python3 sandboxes/[a]*.py",
		"mcp:npx server /work/*",
		"proxy:tinyproxy -d -c /etc/tinyproxy/*.conf",
	} {
		got, err := e.expandSUT(item)
		if err != nil || !slices.Equal(got, []string{item}) {
			t.Errorf("%q: %q, %v; want the command itself", item, got, err)
		}
	}
	if got, err := e.expandSUT("mutant:raw-*"); err != nil || !slices.Equal(got, []string{"mutant:raw-prefix"}) {
		t.Errorf("mutant:raw-*: %q, %v", got, err)
	}
}
