package oracle

import "github.com/sbxfuzz/sbxfuzz/core"

// expected returns what SPEC §5 gives for every op of c, by the oracle's
// independent model: the results a correct sandbox returns, every op run
// (after a halt too). The finding pipeline writes them into a minimized
// finding as expectations, so that a committed finding is also a
// regression test that a correct sandbox passes and the defect fails.
func expected(c checkCase) []core.Result {
	base := newModelBase(c.Scenario.World) // the model alone: no core template to prepare
	if c.World != nil {
		base = c.World.model
	}
	m := newModel(c.Grant.Spec(), newModelWorld(base))
	out := make([]core.Result, len(c.steps()))
	for i := range out {
		out[i], _ = m.predict(c.op(i))
	}
	return out
}
