// Command installed prints the path of the pinned release of the real
// proxy its argument names (smokescreen, tinyproxy, squid or
// trafficserver) where
// .ci/proxy-install installed it, or of the MCP fetch server's script
// (mcp-fetch-server, kazuph-mcp-fetch, mcp-npx-fetch, server-everything)
// where .ci/mcp-install did, for scripts: .ci/run drives them with --sut
// proxy:PATH or mcp:PATH and --profile NAME. It installs nothing: one that
// is not there, or not at its pinned release, is an error, exit status 1.
package main

import (
	"fmt"
	"os"

	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: installed smokescreen|tinyproxy|squid|trafficserver|mcp-fetch-server|kazuph-mcp-fetch|mcp-npx-fetch|server-everything")
		os.Exit(2)
	}
	path, err := proxysut.InstalledProxy(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "installed:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}
