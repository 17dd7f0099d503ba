// Command mysbx is a program built with sbxcli as a team would build its
// own, for the tests of package sbxcli: "mine" is a correct sandbox (the
// reference) and "leaky" a defect variant of it that reads everything.
package main

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/sbxcli"
)

func mine(g core.Grant, w core.World) (core.Sandbox, error) {
	return core.NewReference(g, w), nil
}

// leaky grants every read, whatever the grant says.
func leaky(g core.Grant, w core.World) (core.Sandbox, error) {
	wide, err := core.NewGrant(core.GrantSpec{FSRead: []string{"/"}, Budgets: g.Budgets()})
	if err != nil {
		return nil, err
	}
	return core.NewReference(wide, w), nil
}

func main() {
	sbxcli.Main(map[string]core.Factory{"mine": mine, "leaky": leaky})
}
