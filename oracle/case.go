package oracle

import (
	"errors"
	"fmt"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// checkCase is a scenario ready to be judged: the scenario itself, its grant
// validated, and optionally its world prepared (engine.Case, as the oracle
// reads it).
type checkCase struct {
	Scenario *scenario.Scenario
	// Grant is Scenario.Grant, validated: the sandbox gets it, and the
	// model reads the same lists from Scenario.Grant.
	Grant core.Grant
	// World, when set, is Scenario.World already prepared; when nil, the
	// check prepares the world itself, once for its three worlds.
	World *preparedWorld
}

// ErrUnknownClass is what Check returns for a scenario with a step whose
// attack class is none of package attack's: coverage is counted per
// class, so such a scenario cannot be judged.
var ErrUnknownClass = errors.New("unknown attack class")

// newCase validates sc's grant and its steps' classes and returns the case
// that judges sc. The error is core.NewGrant's (it unwraps to
// core.ErrInvalidGrant), or one that unwraps to ErrUnknownClass.
func newCase(sc *scenario.Scenario) (checkCase, error) {
	g, err := core.NewGrant(sc.Grant)
	if err != nil {
		return checkCase{}, err
	}
	for i, st := range sc.Steps {
		if st.Class >= attack.NumClasses {
			return checkCase{}, fmt.Errorf("step %d: class %d: %w", i+1, st.Class, ErrUnknownClass)
		}
	}
	return checkCase{Scenario: sc, Grant: g}, nil
}

// caseOf is c as the oracle reads it. A world c carries was prepared by
// the oracle (engine.PreparedWorld has no other maker).
func caseOf(c engine.Case) checkCase {
	w, _ := c.World.(*preparedWorld)
	return checkCase{Scenario: c.Scenario, Grant: c.Grant, World: w}
}

// preparedWorld is a scenario's world prepared once for judging: the
// template the sandbox's worlds start from (the watched run's and the
// replay's) and the model's own reading of the same spec. It is immutable
// and safe for concurrent use; the spec it was prepared from must not
// change.
type preparedWorld struct {
	core  *refworld.Template
	model *modelBase
}

// prepareWorld prepares ws for judging any number of scenarios over it.
func prepareWorld(ws scenario.WorldSpec) *preparedWorld {
	return &preparedWorld{core: refworld.Prepare(ws), model: newModelBase(ws)}
}

// Template returns core's template of the prepared world: the state every
// world of a check starts from.
func (p *preparedWorld) Template() *refworld.Template { return p.core }

func (c checkCase) steps() []scenario.Step { return c.Scenario.Steps }

func (c checkCase) op(i int) core.Op { return c.Scenario.Steps[i].Op }

func (c checkCase) class(i int) attack.Class { return c.Scenario.ClassAt(i) }

// classes returns the classes a check of c counts under: its ops' classes
// and Unlabelled, which a total finding before the first op counts under.
// Every counter of the check is under one of them (Coverage.drain).
func (c checkCase) classes() classSet {
	var cs classSet
	cs[attack.Unlabelled] = true
	for i := range c.Scenario.Steps {
		cs[c.class(i)] = true
	}
	return cs
}
