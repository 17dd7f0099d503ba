// Package must builds the values a test or a fixed table states outright,
// panicking when one is invalid: such a value is the harness's own bug,
// never bad input (bad input gets core.NewGrant's error).
package must

import "github.com/sbxfuzz/sbxfuzz/core"

// Grant is core.NewGrant that panics on an invalid spec.
func Grant(s core.GrantSpec) core.Grant {
	g, err := core.NewGrant(s)
	if err != nil {
		panic(err)
	}
	return g
}
