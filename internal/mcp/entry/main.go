// Command entry prints the path of the current pinned release of
// @modelcontextprotocol/server-filesystem (or of the version given as its
// argument) where .ci/mcp-install installed it, for scripts: .ci/run
// drives it with --sut "mcp:node PATH". It installs nothing: a release
// that is not there is an error, exit status 1.
package main

import (
	"fmt"
	"os"

	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
)

func main() {
	version := mcp.CurrentVersion
	if len(os.Args) > 1 {
		version = os.Args[1]
	}
	cache, err := mcp.DefaultCacheDir()
	if err == nil {
		var entry string
		if entry, err = mcp.Installed(cache, version); err == nil {
			fmt.Println(entry)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "entry:", err)
	os.Exit(1)
}
