// Command gosandbox-sbxfuzz is the sbxfuzz command line with the example
// sandbox in it: every sbxfuzz command takes it as --sut gosandbox. This is
// how a reproducer printed by the package's tests is replayed:
//
//	go run ./cmd/gosandbox-sbxfuzz replay --sut gosandbox FILE.sbx
//
// and how a campaign or a coverage report is run against it:
//
//	go run ./cmd/gosandbox-sbxfuzz report --sut gosandbox --checks 20000
package main

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/examples/gosandbox"
	"github.com/sbxfuzz/sbxfuzz/sbxcli"
)

func main() {
	sbxcli.Main(map[string]core.Factory{"gosandbox": gosandbox.New})
}
