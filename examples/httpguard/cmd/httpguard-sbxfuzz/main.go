// Command httpguard-sbxfuzz is the sbxfuzz command line with the example
// sandbox in it, as --sut httpguard:
//
//	go run ./examples/httpguard/cmd/httpguard-sbxfuzz replay --sut httpguard FILE.sbx
//	go run ./examples/httpguard/cmd/httpguard-sbxfuzz run --sut httpguard --checks 20000
package main

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/examples/httpguard"
	"github.com/sbxfuzz/sbxfuzz/sbxcli"
)

func main() {
	sbxcli.Main(map[string]core.Factory{"httpguard": httpguard.New}, sbxcli.Command("go run ./examples/httpguard/cmd/httpguard-sbxfuzz"))
}
