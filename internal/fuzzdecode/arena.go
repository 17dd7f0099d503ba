package fuzzdecode

import (
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// A ModeArena input, after its mode byte:
//
//	input   = arena-byte op*
//	op      = class-byte                 (class-byte%32 is an attack class, 1–26:
//	                                      generators.Op of that class, aimed at the
//	                                      arena, draws from the bytes that follow)
//	        | class-byte head string*    (any other value: a raw op)
//	head    = the low three bits pick the kind from rawKinds (7: the kind is the
//	          next string); bits 3–5 pick the arity: 0–3 the kind's own
//	          (1 for a kind that is none of the four), 4–7 zero to three arguments
//	string  = n < 0xC0                   n raw bytes (fewer at the end of the input)
//	        | 0xC0–0xDF                  hostileWords[n-0xC0]
//	        | 0xE0–0xFF                  one of the arena's own names (roots and
//	                                      paths below them, files, hosts, route
//	                                      paths, tools), by index
//
// The arena byte picks arenas[b%NumArenas]. Ops follow until the input ends
// or the scenario has MaxOps ops.

// NumArenas is how many grants and worlds ModeArena picks from.
const NumArenas = 64

// arenaSeed seeds the generator that draws the arenas: changing it changes
// what every committed arena-mode input decodes to.
const arenaSeed = 0x5bf0a2e1

// arena is one grant and world of ModeArena, with the names raw ops pick
// from.
type arena struct {
	sc    *scenario.Scenario  // no ops; never written after it is built
	grant core.Grant          // sc.Grant, built once: a Grant is immutable
	world judge.PreparedWorld // sc.World, prepared once: it is immutable
	names []string
}

// maxArenaWorld bounds the entries (files, links, routes, DNS lines, tool
// outputs) of an arena's world, so that its names stay few enough for the
// 32 name bytes to reach (most of) them. (Size costs no exec time: the
// world is prepared once.) About one generated world in eight is that
// small; ModeGenerated and ModeText inputs have worlds of any size.
const maxArenaWorld = 14

// arenas draws the NumArenas grants and worlds, once: the first scenarios
// generators.Generate draws from the seeded sources (arenaSeed, 0), (arenaSeed,
// 1), … whose worlds have at most maxArenaWorld entries, ops dropped. They
// span the generators' budget profiles — roomy, tight op, wall and output
// budgets, budgets of 0 and on the edge — and their grant shapes.
var arenas = sync.OnceValue(func() []arena {
	out := make([]arena, 0, NumArenas)
	for stream := uint64(0); len(out) < NumArenas; stream++ {
		g := generators.Generate(generators.NewSource(arenaSeed, stream))
		w := &g.World
		// Links count as at most two entries: a world's links come as one
		// recipe (a chain of 41 is one), and arenas without them would
		// leave arena-mode inputs no link to attack.
		if len(w.Files)+min(len(w.Links), 2)+len(w.Routes)+len(w.DNS)+len(w.ToolOutputs) > maxArenaWorld {
			continue
		}
		g.Steps = nil
		out = append(out, arena{sc: g, grant: must.Grant(g.Grant), world: judge.PrepareWorld(g.World), names: scenarioNames(g)})
	}
	return out
})

// arenaMemory is the memory of one arena input: its scenario, steps, raw
// ops' arguments, byte source and the copy of its bytes. Arena inputs
// recycle it through arenaMemories, so that an exec allocates nothing of
// its own but what generators.Op does; the garbage collector would
// otherwise cost every exec. A scenario that fails is reported, so its
// memory is never given back.
type arenaMemory struct {
	sc    scenario.Scenario
	steps [MaxOps]scenario.Step
	args  [MaxOps][3]string // room for each step's raw op's arguments
	src   byteSource
}

var arenaMemories = sync.Pool{New: func() any { return new(arenaMemory) }}

// Release gives an arena input's memory back to arenaMemories, a text
// input's decoder to decoders and a generated input's generator to
// drawers. Neither the input nor its Case may be used afterwards.
func (in *Input) Release() {
	switch {
	case in.text != nil:
		decoders.Put(in.text)
	case in.gen != nil:
		drawers.Put(in.gen)
	case in.arena != nil:
		m := in.arena
		// Drop what the last input pointed at, so that the pool keeps
		// nothing of it alive.
		m.sc, m.src = scenario.Scenario{}, byteSource{}
		clear(m.steps[:])
		clear(m.args[:])
		arenaMemories.Put(m)
	}
}

// rawKinds are the op kinds a raw op's head picks from; the last slot is "the
// next string".
var rawKinds = [8]string{core.OpRead, core.OpWrite, core.OpFetch, core.OpTool, "exec", "FS_READ", "fs_read ", ""}

// hostileWords are the strings a word byte of 0xC0–0xDF names: path
// fragments, host spellings and metadata names of SPEC §9.
var hostileWords = [32]string{
	"..", "/../", `\..\`, "/work/../etc/passwd",
	"%2e%2e", "..%2f", "%252e%252e%252f", "/work/\uff0e\uff0e/etc/passwd",
	"\u2024\u2024", "/etc/passwd", "/", "/proc/self/environ",
	"work/x", "./x", "", "/work/x\x00",
	"\n", "\xff\xfe", "//work//x/", "/workshop/secret",
	"127.1", "2130706433", "0x7f.0.0.1", "[::1]",
	"::ffff:127.0.0.1", "169.254.169.254", "metadata.google.internal", "fd00:ec2::254",
	"100.100.100.200", "localhost", "evil.com", "API.Example.ORG.",
}

// decodeArena decodes a ModeArena input (see above). The grant and world
// are the arena's own, shared.
func decodeArena(data []byte) Input {
	a := &arenas()[0]
	if len(data) > 0 {
		a, data = &arenas()[int(data[0])%NumArenas], data[1:]
	}
	m := arenaMemories.Get().(*arenaMemory)
	m.sc = scenario.Scenario{Grant: a.sc.Grant, World: a.sc.World, Steps: m.steps[:0]}
	sc, src := &m.sc, &m.src
	src.data = string(data)
	for len(src.data) > 0 && len(sc.Steps) < MaxOps {
		cl := attack.Class(src.next() % 32)
		var op core.Op
		if cl > attack.Unlabelled && cl < attack.NumClasses {
			op = generators.Op(src, cl, a.sc)
		} else {
			cl = attack.Unlabelled
			op = rawOp(src, a.names, m.args[len(sc.Steps)][:])
		}
		sc.Steps = append(sc.Steps, scenario.Step{Op: op, Class: cl})
	}
	cutOps(sc)
	return Input{Mode: ModeArena, sc: sc, grant: a.grant, world: a.world, arena: m}
}

// rawArity reads an op's argument count from bits 3–5 of its head byte:
// 0–3 mean the kind's own arity (1 for an unknown kind), 4–7 mean 0–3
// arguments, so the decoders can say both "well formed" and "any arity".
func rawArity(head byte, kind string) int {
	n := int(head>>3) & 7
	if n >= 4 {
		return n - 4
	}
	if a, ok := spec.Arity(kind); ok {
		return a
	}
	return 1
}

// rawOp decodes one raw op from src: a head byte, then strings. Its
// arguments go into room, which the op owns, when they fit (at most three
// do), else into a new slice.
func rawOp(src *byteSource, names []string, room []string) core.Op {
	head := src.next()
	kind := rawKinds[head&7]
	if head&7 == 7 {
		kind = rawString(src, names)
	}
	n := rawArity(byte(head), kind)
	if n > len(room) || room == nil { // Args of no arguments are empty, not nil
		room = make([]string, n)
	}
	args := room[:n:n] // capped: an append to one op's arguments moves them
	for i := range args {
		args[i] = rawString(src, names)
	}
	return core.Op{Kind: kind, Args: args}
}

// rawString decodes one string: raw bytes, a hostile word or one of the
// arena's names.
func rawString(src *byteSource, names []string) string {
	if len(src.data) == 0 {
		return ""
	}
	n := src.next()
	switch {
	case n >= 0xE0:
		return names[(n-0xE0)%len(names)]
	case n >= 0xC0:
		return hostileWords[n-0xC0]
	}
	n = min(n, len(src.data))
	s := src.data[:n]
	src.data = src.data[n:]
	return s
}

// maxArenaLinkNames is how many of a world's links scenarioNames names:
// the first of a recipe are the ones its ops go through.
const maxArenaLinkNames = 4

// scenarioNames lists what a grant and world name: roots and paths below
// them, files, links and paths through them, hosts, route paths and tools. It is never empty.
func scenarioNames(g *scenario.Scenario) []string {
	names := []string{"/work/x"}
	for _, r := range g.Grant.FSRead {
		names = append(names, r, strings.TrimRight(r, "/")+"/x")
	}
	for _, r := range g.Grant.FSWrite {
		names = append(names, r, strings.TrimRight(r, "/")+"/new")
	}
	names = append(names, g.Grant.NetHosts...)
	names = append(names, g.Grant.Tools...)
	for _, f := range g.World.Files {
		names = append(names, f.Path)
	}
	for _, l := range g.World.Links[:min(len(g.World.Links), maxArenaLinkNames)] {
		names = append(names, l.Path, strings.TrimRight(l.Path, "/")+"/x") // the link, and a path through it
	}
	for _, r := range g.World.Routes {
		names = append(names, r.Host, r.Path)
	}
	for _, d := range g.World.DNS {
		names = append(names, d.Host)
	}
	for _, t := range g.World.ToolOutputs {
		names = append(names, t.Name)
	}
	return names
}
