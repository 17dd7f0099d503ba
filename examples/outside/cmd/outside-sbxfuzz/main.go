// Command outside-sbxfuzz is the sbxfuzz command line with the sandbox of
// package outside in it, as --sut outside, and each of its variants as
// --sut outside-NAME. From examples/outside:
//
//	go run ./cmd/outside-sbxfuzz replay --sut outside FILE.sbx
//	go run ./cmd/outside-sbxfuzz run --sut outside --checks 20000
//	go run ./cmd/outside-sbxfuzz run --sut outside-prefix-sibling --checks 1000
package main

import (
	"example.com/outside"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/sbxcli"
)

func main() {
	sandboxes := map[string]core.Factory{"outside": outside.New}
	for _, v := range outside.Variants() {
		sandboxes["outside-"+v.Name] = v.Factory
	}
	sbxcli.Main(sandboxes)
}
