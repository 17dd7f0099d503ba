package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
)

func runProfile(e *env, args []string) int {
	fs := newFlags(e, "profile", "[NAME]", `
Print the built-in profile NAME of the mcp: or proxy: door as JSON, to save
as a file, change and give to --profile (docs/real-sandboxes.md says what
each field does); without NAME, list the built-in profiles by door.`)
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	switch fs.NArg() {
	case 0:
		fmt.Fprintf(e.stdout, "mcp: file servers: %s\n", strings.Join(mcp.BuiltinNames(), ", "))
		fmt.Fprintf(e.stdout, "mcp: fetch servers: %s\n", strings.Join(proxysut.ServerNames(), ", "))
		fmt.Fprintf(e.stdout, "proxy: %s\n", strings.Join(proxysut.BuiltinNames(), ", "))
		return ExitOK
	case 1:
	default:
		return errorf(e, "profile: unexpected argument %q (one NAME at most)", fs.Arg(1))
	}
	name := fs.Arg(0)
	if p, ok := mcp.LookupProfile(name); ok {
		data, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return errorf(e, "profile %s: %v", name, err)
		}
		fmt.Fprintf(e.stdout, "%s\n", data)
		return ExitOK
	}
	if data, ok := proxysut.BuiltinJSON(name); ok {
		e.stdout.Write(data)
		return ExitOK
	}
	return errorf(e, "profile: no built-in profile %q (mcp: %s; %s; proxy: %s)", name,
		strings.Join(mcp.BuiltinNames(), ", "), strings.Join(proxysut.ServerNames(), ", "), strings.Join(proxysut.BuiltinNames(), ", "))
}
