package generators

import "github.com/sbxfuzz/sbxfuzz/scenario"

// A Generator draws scenarios as Generate does, into memory of its own that
// each of its calls reuses. A campaign checks one scenario at a time per
// worker and keeps almost none: drawing each into the memory of the one
// before keeps that memory in the processor's caches and spares the
// allocations, the clearing and the collections that fresh memory for every
// scenario costs. A Generator is not safe for concurrent use; give each
// worker its own.
type Generator struct {
	d  draw               // never pooled: its slabs are rewound, not carved on
	sc *scenario.Scenario // the last scenario's header, reused; nil after Abandon
}

// NewGenerator returns a Generator.
func NewGenerator() *Generator { return new(Generator) }

// Generate returns the scenario Generate(src) returns, equal in every
// field, drawn into g's memory. It is valid until the next call of
// g.Generate: the lists of the last scenario are cleared and reused then
// (its strings are not: they stay valid). So a caller that keeps the
// scenario, or a part of it, past that keeps a Clone of it; and one that
// cannot know when its readers are done with it (a check given up on as
// hung, whose goroutine may still read it) calls Abandon first.
func (g *Generator) Generate(src Source) *scenario.Scenario { return g.GenerateAtMost(src, maxOps) }

// GenerateAtMost returns the scenario GenerateAtMost(src, n) returns, drawn
// into g's memory as Generate draws: valid until g's next call. (The fuzz
// targets draw a scenario an input this way.)
func (g *Generator) GenerateAtMost(src Source, n int) *scenario.Scenario {
	d := &g.d
	d.rewind()
	if g.sc == nil {
		g.sc = new(scenario.Scenario)
	} else {
		*g.sc = scenario.Scenario{}
	}
	d.src = src
	d.pcg, _ = src.(*pcgSource)
	sc := d.generate(g.sc, min(max(n, 1), maxOps))
	// As release does: what the next call draws before its facts are reset
	// must not find these under the same header pointer (factsOf compares
	// the pointer only).
	d.src, d.pcg, d.facts.sc = nil, nil, nil
	return sc
}

// FixRoots makes every later scenario of g draw its read roots from one
// base (/work, /data, /srv/app, …): the k-th, counted modulo their number,
// for any k >= 0; a negative k draws the base anew for each scenario, as
// Generate does. The roots' shape (one, two, nested, a prefix pair, "/")
// is drawn as ever: a fixed base narrows the sets of roots a run of
// scenarios holds, for a sandbox that restarts for each new set (an MCP
// server given its allowed directories).
func (g *Generator) FixRoots(k int) {
	g.d.rootBase = 0
	if k >= 0 {
		g.d.rootBase = 1 + k%len(readBases)
	}
}

// Abandon leaves the last scenario g.Generate returned to whoever still
// reads it: g's next scenarios are drawn into new memory, and that one is
// never written again.
func (g *Generator) Abandon() {
	g.d.abandon()
	g.sc = nil
}
