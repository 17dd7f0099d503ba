package oracle

import (
	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Case is a scenario ready to be judged: the scenario itself, its grant
// validated, and optionally its world prepared. It is not a second
// scenario type; it only holds what checking a scenario needs built once.
type Case struct {
	Scenario *scenario.Scenario
	Grant    core.Grant // Scenario.Grant, validated
	// Template, when set, is Scenario.World already prepared:
	// core.PrepareWorld(Scenario.World) or a template equal to it. Callers
	// that judge many scenarios over one world (the fuzz targets' arenas)
	// prepare it once; when nil, the check prepares the world itself, once
	// for its three worlds.
	Template *core.WorldTemplate
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

// template returns the case's world, prepared.
func (c *Case) template() *core.WorldTemplate {
	if c.Template != nil {
		return c.Template
	}
	return core.PrepareWorld(c.Scenario.World)
}

func (c Case) steps() []scenario.Step { return c.Scenario.Steps }

func (c Case) op(i int) core.Op { return c.Scenario.Steps[i].Op }

func (c Case) class(i int) attack.Class { return c.Scenario.ClassAt(i) }
