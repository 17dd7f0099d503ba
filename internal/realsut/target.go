package realsut

import (
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Target is the harness's Target (sut.Target) of the real sandbox a
// describes: sessions started by a.Start; scenarios whose world is too
// large for a real tree refused as bad input (CheckSize); and a hang
// confirmed on a fresh session before it counts, since a sandbox in a
// process of its own, on a busy machine, may be late without being wrong.
func (a Adapter) Target() door.Target {
	return door.Target{Name: a.Name, Start: a.Start, Adapt: a.Adapt, NotApplicable: a.NotApplicable, KindsNotApplicable: FSOnlyKindsNA, Unasked: a.Unasked, Asks: a.Asks, Why: a.Why,
		Refuse: func(sc *scenario.Scenario) error { return CheckSize(sc.World) }, ConfirmHangs: true, RootBlock: a.RootBlock,
		StartCounted: a.StartCounted}
}
