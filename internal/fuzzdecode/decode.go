package fuzzdecode

import (
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Mode is how Decode read an input; its first byte picks it.
type Mode uint8

// The decoder's modes.
const (
	// ModeArena (most first bytes: 0x00–0xF7 except '#'): one of NumArenas
	// grants and worlds that generators.Generate drew once, when the
	// package was first used, then ops one at a time, each of an attack
	// class the input names (generators.Op, aimed at that grant and world)
	// or raw. See decodeArena for the layout. It is the cheap mode: no
	// grant or world is built per input.
	ModeArena Mode = iota
	// ModeGenerated (first byte 0xF8–0xFF): the rest of the input is the
	// randomness generators.GenerateAtMost draws a whole scenario of at
	// most MaxOps ops from, as a campaign draws longer ones: a grant and a
	// world built together from the project's hostile dictionaries, a
	// budget profile and its edges (budgets those ops land on exactly), and
	// ops of every attack class of SPEC §9.
	ModeGenerated
	// ModeText (first byte '#'): the whole input is .sbx text, its first
	// line a comment. This is how the committed corpus becomes seeds, and
	// it expresses any grant, world and op with any bytes. Text that does
	// not parse, or whose grant is invalid, is read in ModeArena instead.
	ModeText
)

var modeNames = [...]string{ModeArena: "arena", ModeGenerated: "generated", ModeText: "text"}

// String returns "arena", "generated" or "text".
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "unknown"
}

// textMarker, as an input's first byte, picks ModeText.
const textMarker = '#'

// GeneratedStart is the lowest first byte that picks ModeGenerated: every
// first byte from it to 0xFF does.
const GeneratedStart = 0xF8

// MaxOps bounds the ops of an arena or generated scenario, so that one exec
// stays cheap next to the fuzzer's own work: longer ones are cut after
// MaxOps ops. Sequences longer than that (an op flood against a large
// max_ops) are for campaigns and text inputs.
const MaxOps = 8

// MaxTextOps bounds the ops of a ModeText scenario: every committed corpus
// scenario fits whole.
const MaxTextOps = 64

// maxArg bounds each op argument of an arena or generated scenario, in
// bytes: the checks scan arguments byte by byte, and under the fuzzer's
// coverage instrumentation a 4 KB path costs more than the rest of the
// scenario. A path 150 levels deep, or with a segment longer than NAME_MAX,
// still fits; longer arguments are cut. Text inputs are not cut.
const maxArg = 320

// maxGenBytes bounds the bytes ModeGenerated draws from: about what MaxOps
// ops take, so that Generate does not draw ops only to have them cut.
const maxGenBytes = 160

// Decoded is what Decode makes of an input.
type Decoded struct {
	Scenario *scenario.Scenario // never nil; its grant always validates; ops carry their classes (Unlabelled for text and raw ops)
	Mode     Mode
}

// Decode turns any bytes into a scenario: a grant, a world and ops (at most
// MaxOps, or MaxTextOps for text), without expectations. Every input
// decodes to something, and the same input always to the same scenario;
// the scenario shares no memory with other decoded scenarios. See Mode for
// the layouts.
func Decode(data []byte) *scenario.Scenario { return DecodeLabelled(data).Scenario }

// DecodeLabelled is Decode with the attack class of each op and the mode
// the input was read in.
func DecodeLabelled(data []byte) Decoded {
	in := Read(data)
	d := Decoded{Scenario: in.Scenario(), Mode: in.Mode}
	in.Release() // d.Scenario is a copy: the memory can decode the next input
	return d
}

// Input is a decoded input as the oracle reads it, in memory the decoder
// reuses: a checker builds a *scenario.Scenario of its own (Scenario) only
// to report a finding, and hands the memory back (Release) when the input
// passed. The zero Input is not a decoded input.
type Input struct {
	Mode  Mode
	sc    *scenario.Scenario    // the grant, the world, the ops and (not for text) their classes
	grant core.Grant            // sc.Grant, built
	world judge.PreparedWorld   // sc.World, prepared (arenas only; nil: the oracle prepares it)
	text  *textDecoder          // text: the decoder whose memory sc is, to reuse once the input passed
	arena *arenaMemory          // arena: the memory sc is (its grant and world lists the arena's, read only), to reuse once the input passed
	gen   *generators.Generator // generated: the generator whose memory sc is, to reuse once the input passed
}

// drawers recycles the generators of generated inputs: each draws a
// scenario into the memory of the one it drew before, as a campaign
// worker's does, instead of allocating its lists afresh.
var drawers = sync.Pool{New: func() any { return generators.NewGenerator() }}

// Read decodes data by the mode its first byte picks, as Decode does, into
// memory that the next input reuses once this one is released.
func Read(data []byte) Input {
	if len(data) > 0 && data[0] == textMarker {
		if in, ok := decodeText(data); ok {
			return in
		}
	}
	if len(data) > 0 && data[0] >= GeneratedStart {
		g := drawers.Get().(*generators.Generator)
		sc := g.GenerateAtMost(&byteSource{data: string(data[1:min(len(data), 1+maxGenBytes)])}, MaxOps)
		cutOps(sc)
		grant := must.Grant(sc.Grant) // Generate's grants always validate
		return Input{Mode: ModeGenerated, sc: sc, grant: grant, gen: g}
	}
	if len(data) > 0 {
		data = data[1:]
	}
	return decodeArena(data)
}

// textDecoder decodes text inputs: a .sbx parser, and the grant of the
// last input it decoded. Consecutive inputs of a fuzzing run are mostly
// mutations of one input, and most mutations leave its grant lines alone,
// so the grant is built again only when the lists or budgets differ: a
// core.Grant is immutable (arenas share theirs between inputs too), and the
// same spec always builds the same grant.
type textDecoder struct {
	parser scenario.Parser
	grant  core.Grant // the last grant; the zero Grant before the first
}

// decoders recycles the text decoders: a scenario's lists and steps,
// reused by the next text input once the oracle has passed this one, and
// the last grant.
var decoders = sync.Pool{New: func() any { return new(textDecoder) }}

// grantOf returns core.NewGrant(s), the last grant when it is s's.
func (d *textDecoder) grantOf(s core.GrantSpec) (core.Grant, error) {
	if d.grant != (core.Grant{}) && d.grant.Matches(s) {
		return d.grant, nil
	}
	g, err := core.NewGrant(s)
	if err != nil {
		return core.Grant{}, err
	}
	d.grant = g
	return g, nil
}

// decodeText parses data as .sbx text. It fails on a parse error and on a
// grant core.NewGrant refuses.
func decodeText(data []byte) (Input, bool) {
	d := decoders.Get().(*textDecoder)
	sc, err := d.parser.Parse("fuzz.sbx", data)
	if err != nil {
		decoders.Put(d)
		return Input{}, false
	}
	grant, err := d.grantOf(sc.Grant)
	if err != nil {
		decoders.Put(d)
		return Input{}, false
	}
	if len(sc.Steps) > MaxTextOps {
		sc.Steps = sc.Steps[:MaxTextOps]
	}
	for i := range sc.Steps {
		if st := &sc.Steps[i]; st.Expect != nil {
			st.Expect = nil // a nil stored over a nil would still cost a write barrier
		}
		sc.Steps[i].Line = 0
	}
	return Input{Mode: ModeText, sc: sc, grant: grant, text: d}, true
}

// cutOps cuts a decoded scenario to MaxOps ops (a guard: both decoders
// stop there) of at most maxArg bytes an argument. Generated ops share no
// memory, so they are cut in place.
func cutOps(sc *scenario.Scenario) {
	if len(sc.Steps) > MaxOps {
		sc.Steps = sc.Steps[:MaxOps]
	}
	for _, st := range sc.Steps {
		for j, a := range st.Op.Args {
			st.Op.Args[j] = a[:min(len(a), maxArg)]
		}
	}
}

// Case is the oracle's case for the input: its scenario, built grant and
// (for an arena) prepared world. It is valid until Release.
func (in *Input) Case() judge.Case {
	return judge.Case{Scenario: in.sc, Grant: in.grant, World: in.world}
}

// Scenario returns the input as a scenario of its own memory. Every mode
// decodes into memory the next input reuses (a text decoder's, an arena
// input's, a generator's), and arenas share their grant and world lists;
// the strings are immutable, so a Clone copies only the lists.
func (in *Input) Scenario() *scenario.Scenario { return in.sc.Clone() }

// byteSource is a generators.Source over fuzz input bytes. A draw among at
// most 256 values eats one byte, a larger one two; when the bytes run out
// every draw is 0, the generators' simplest choice (an empty op slot), so a
// short input is a short scenario. The bytes are a string so that raw
// strings (rawString) are substrings of it: one copy of the input, not one
// a string.
type byteSource struct{ data string }

// Intn returns a value in [0, n). It panics when n <= 0, as every Source
// does.
func (s *byteSource) Intn(n int) int {
	if n <= 1 {
		if n <= 0 {
			panic("fuzz: Intn of a non-positive n")
		}
		return 0
	}
	v := s.next()
	if n > 256 {
		v = v<<8 | s.next() // big-endian
	}
	return v % n
}

// next returns the next byte, 0 past the end. It tests the length, not
// s.data == "": in the libFuzzer build every comparison of two strings
// calls a hook that copies both, which here is the rest of the input, at
// every byte drawn.
func (s *byteSource) next() int {
	if len(s.data) == 0 {
		return 0
	}
	b := s.data[0]
	s.data = s.data[1:]
	return int(b)
}
