package oracle

import (
	"sync"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Case is a scenario ready to be judged: the scenario itself, its grant
// validated, and optionally its world prepared. It is not a second
// scenario type; it only holds what checking a scenario needs built once.
type Case struct {
	Scenario *scenario.Scenario
	// Grant is Scenario.Grant, validated (NewCase): the sandbox gets it,
	// and the model reads the same lists from Scenario.Grant.
	Grant core.Grant
	// World, when set, is Scenario.World already prepared: PrepareWorld
	// of it, or of a world equal to it. Callers that judge many scenarios
	// over one world (the fuzz targets' arenas) prepare it once; when nil,
	// the check prepares the world itself, once for its three worlds.
	World *PreparedWorld
}

// NewCase validates sc's grant and returns the case that judges sc. The
// error is core.NewGrant's (it unwraps to core.ErrInvalidGrant). The case
// reads sc, which must not change while it is judged.
func NewCase(sc *scenario.Scenario) (Case, error) {
	g, err := core.NewGrant(sc.Grant)
	if err != nil {
		return Case{}, err
	}
	return Case{Scenario: sc, Grant: g}, nil
}

// PreparedWorld is a scenario's world prepared once for judging: the
// template the sandbox's worlds start from (the watched run's and the
// replay's) and the model's own reading of the same spec. Until it is
// recycled it is immutable and safe for concurrent use; the spec it was
// prepared from must not change.
type PreparedWorld struct {
	core  *core.WorldTemplate
	model *modelBase
	// recyclable is set on a world PrepareScenarioWorld prepared, which
	// Recycle may hand on; pooled is set while it waits in the pool.
	recyclable, pooled bool
}

// PrepareWorld prepares ws for judging any number of scenarios over it.
func PrepareWorld(ws core.WorldSpec) *PreparedWorld {
	return &PreparedWorld{core: core.PrepareWorld(ws), model: newModelBase(ws).prepare()}
}

// preparedWorlds holds the memory of worlds prepared for one scenario and
// recycled: a campaign or a fuzz target prepares a world per scenario, and
// building its tables afresh each time was most of what a short check
// allocated.
var preparedWorlds = sync.Pool{New: func() any {
	return &PreparedWorld{core: new(core.WorldTemplate), model: new(modelBase), recyclable: true}
}}

// PrepareScenarioWorld prepares ws for judging one scenario over it: core's
// template at once, the model's part lazily, as one check needs it
// (PrepareWorld prepares both for many scenarios), in memory an earlier
// world handed back (Recycle). Callers that also read the template
// (Template) set Case.World to it, so the world is prepared once.
func PrepareScenarioWorld(ws core.WorldSpec) *PreparedWorld {
	p := preparedWorlds.Get().(*PreparedWorld)
	p.pooled = false
	p.core.Prepare(ws)
	p.model.reset(ws)
	return p
}

// Recycle hands the memory of a world PrepareScenarioWorld prepared back
// for a later one, once nothing reads it again: no check, no count, and no
// sandbox whose world started from it. Never after a check given up on (a
// finding with Hang set): its sandbox may still be reading its world.
// Recycling a world PrepareWorld prepared does nothing, and so does
// recycling one again before PrepareScenarioWorld hands its memory out
// anew; call it once, by the world's last reader.
func (p *PreparedWorld) Recycle() {
	if p == nil || !p.recyclable || p.pooled {
		return
	}
	p.pooled = true
	// Neither part is emptied: PrepareScenarioWorld re-prepares core's
	// template and resets the model's part (whose lazy preparation must
	// not see this scenario's spec) before anything reads them, so
	// emptying them here as well would be work done twice on every check.
	preparedWorlds.Put(p)
}

// Template returns core's template of the prepared world: the state every
// world of a check starts from.
func (p *PreparedWorld) Template() *core.WorldTemplate { return p.core }

func (c Case) steps() []scenario.Step { return c.Scenario.Steps }

func (c Case) op(i int) core.Op { return c.Scenario.Steps[i].Op }

func (c Case) class(i int) attack.Class { return c.Scenario.ClassAt(i) }

// classes returns the classes a check of c counts under: its ops' classes
// and Unlabelled, which a total finding before the first op counts under.
// Every counter of the check is under one of them (Coverage.drain).
func (c Case) classes() classSet {
	var cs classSet
	cs[attack.Unlabelled] = true
	for i := range c.Scenario.Steps {
		cs[c.class(i)] = true
	}
	return cs
}
