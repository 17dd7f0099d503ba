// Command gosandbox-sbxfuzz is the sbxfuzz command line with the example
// sandbox in it: every sbxfuzz command takes it as --sut gosandbox. This is
// how a reproducer printed by the package's tests is replayed:
//
//	go run ./cmd/gosandbox-sbxfuzz replay --sut gosandbox FILE.sbx
//
// and how a campaign or a coverage report is run against it:
//
//	go run ./cmd/gosandbox-sbxfuzz run --sut gosandbox --checks 20000
//	go run ./cmd/gosandbox-sbxfuzz report --sut gosandbox --checks 20000
//
// A campaign writes its findings to sbxfuzz/findings/gosandbox under the
// user's cache directory, and names it, so that it leaves the working tree
// as it was; --out DIR writes them to DIR instead.
package main

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/examples/gosandbox"
	"github.com/sbxfuzz/sbxfuzz/sbxcli"
)

func main() {
	sbxcli.Main(map[string]core.Factory{"gosandbox": gosandbox.New})
}
