package oracle

import (
	"bytes"
	"math"
	"net/netip"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// modelWorld is the model's own world: SPEC §1's table, §6's resolver and
// §7's clock, read a second time. It shares nothing with core's RefWorld
// but Clean (core.Canonical) and the plain types of a WorldSpec, so a
// misreading of the SPEC in one shows up as a disagreement with the other.
// It keeps no journal: the model needs only the answers.
//
// What the spec says is kept in a modelBase, which a run only reads; what a
// run changes (writes, whose turn each dns line is, the clock) is kept here.
// So one base can serve every run over the same world (PrepareWorld).
type modelWorld struct {
	base    *modelBase
	written modelTable[string, string] // Clean(path) → content written by this run
	turns   []int                      // per dns line: whose turn it is; empty until the run's first resolve
	clock   tickClock
	// answers holds, per link (modelLink.index), what realpath has learned
	// of it this run: links never change, so a link is walked through at
	// most once a run, however many paths lead through it. Empty until the
	// run's first walk meets a link.
	answers []linkAnswer
	// answerText holds the answered links' resolutions, one after another.
	answerText []byte
}

// linkAnswer is what a run knows of one link: nothing yet, that its target
// is being walked, where it leads and through how many links (itself
// included), or that it loops.
type linkAnswer struct {
	state   answerState
	links   int
	at, end int // answered: the resolution is answerText[at:end], "" for "/"
}

type answerState uint8

const (
	unasked answerState = iota
	asking
	answered
	loopsForever
)

// modelBase is a world's spec, and the tables the model reads it through.
// Each table is built the first time an op needs it (most scenarios never
// fetch, many never read), so starting a world costs nothing per file;
// prepare builds them all, after which a base is only read and may be
// shared. The spec's slices are read then, so they must not change while
// the base is in use. A base a check prepared for itself is reset for the
// next check's world (reset), keeping the tables' memory.
type modelBase struct {
	spec   core.WorldSpec
	files  modelTable[string, string]     // Clean(path) → content
	routes modelTable[modelRoute, string] // hostKey(host) and path → body
	dns    modelTable[string, int]        // hostKey(host) → the index of its (last) dns line
	links  map[string]modelLink           // Clean(link path) → the link
	// linkLength[n] says whether some link path is n bytes long: a walk
	// need not look up a path of a length no link has, nor one longer
	// than them all (len(linkLength)-1 is the longest).
	linkLength []bool
	built      mapSet // which maps hold spec's entries
}

// modelLink is a link's target, and its place in a run's answers.
type modelLink struct {
	target string
	index  int
}

// modelRoute is what the router matches: the host as the resolver compares
// names, and the path byte for byte.
type modelRoute struct{ host, path string }

// mapSet names a modelBase's maps.
type mapSet uint8

const (
	filesBuilt mapSet = 1 << iota
	routesBuilt
	dnsBuilt
	linksBuilt
)

func newModelBase(ws core.WorldSpec) *modelBase { return &modelBase{spec: ws} }

// reset makes b the base of ws, emptying its maps but keeping their
// memory. Nothing may read b's earlier world again.
func (b *modelBase) reset(ws core.WorldSpec) {
	b.spec, b.built = ws, 0
	clear(b.linkLength)
	b.linkLength = b.linkLength[:0]
	b.files.reset(0) // sized as it is filled
	b.routes.reset(0)
	b.dns.reset(0)
	clear(b.links)
}

// prepare builds every map, so that the base is read-only from then on.
func (b *modelBase) prepare() *modelBase {
	b.fileTable()
	b.routeTable()
	b.dnsTable()
	b.linkMap()
	return b
}

// fill reports whether the table named m must be filled now (it is not
// yet), and marks it built.
func (b *modelBase) fill(m mapSet) bool {
	if b.built&m != 0 {
		return false
	}
	b.built |= m
	return true
}

func newModelWorld(b *modelBase) *modelWorld {
	w := new(modelWorld)
	w.reset(b)
	return w
}

// reset starts w afresh over b: nothing written, every dns line at its
// first answer, the clock at its start. It keeps the memory of w's writes.
func (w *modelWorld) reset(b *modelBase) {
	w.written.reset(0)
	clear(w.answers)
	*w = modelWorld{base: b, written: w.written, turns: w.turns[:0], clock: tickClock{next: b.spec.Clock.Start, step: b.spec.Clock.Step},
		answers: w.answers[:0], answerText: w.answerText[:0]}
}

// realpath is VFS.Realpath (SPEC §13), read as the SPEC says it: walk the
// path's components from the start; a component that names a link is
// replaced by the link's target, read from the link's directory (or from
// "/" when it is absolute), and the walk goes on through the target and
// then the rest; more than 40 links followed is a loop (false). The walk
// keeps the path reached so far as text, one "/name" per component, so
// ".." leaves the directory really reached. It is the model's own: core's
// resolution is never asked.
func (w *modelWorld) realpath(p string) (string, bool) {
	links := w.base.linkMap()
	if len(links) == 0 {
		return core.Canonical(p), true
	}
	if clean := core.Canonical(p); !strings.Contains(p, "..") && !anyPrefixIsLink(clean, links, w.base.linkLength) {
		return clean, true // the walk would meet exactly the prefixes of clean, and none is a link
	}
	if !strings.HasPrefix(p, "/") {
		return relativeRealpath(p, links)
	}
	if len(w.answers) != len(links) { // the run's first walk through a link
		w.answers = slices.Grow(w.answers[:0], len(links))[:len(links)]
		clear(w.answers)
	}
	var room [256]byte
	reached, _, end := w.walk(room[:0], p, 0) // "" is "/"
	switch {
	case end != answered:
		return "", false
	case len(reached) == 0:
		return "/", true
	}
	return string(reached), true
}

// walk walks path from reached, an absolute path reached with followed
// links followed ("" is "/"), and returns the path it reaches and the
// links followed then. end is answered when the walk got to the end of
// path; asking when it stopped past 40 links; loopsForever when it found
// itself going round a loop.
//
// A link is walked through recursively: where it leads, from its
// directory, is a path of its own, whatever the walk that met it had
// followed before, since every prefix of reached is a path found to be no
// link. What a walk learns of a link is kept for the run (answers): a link
// met again adds its count and jumps to its answer. A walk that meets a
// link it is still inside (asking) is back where it was when it met it
// first, with more to walk after: it goes round forever, a loop however
// few links it has followed yet, and so does every link it is inside.
// Past 40 links a walk stops, and what it did not finish learning is
// forgotten: the links before it counted too.
func (w *modelWorld) walk(reached []byte, path string, followed int) (_ []byte, _ int, end answerState) {
	links := w.base.links
	for path != "" {
		var name string
		name, path, _ = strings.Cut(path, "/")
		switch name {
		case "", ".":
			continue
		case "..": // reached's parent was reached before: no link
			reached = reached[:max(bytes.LastIndexByte(reached, '/'), 0)]
			continue
		}
		dir := len(reached)
		reached = append(append(reached, '/'), name...)
		if n := len(reached); n >= len(w.base.linkLength) || !w.base.linkLength[n] { // no link is this long
			continue
		}
		l, isLink := links[string(reached)]
		if !isLink {
			continue
		}
		a := &w.answers[l.index]
		switch a.state {
		case answered:
			if followed += a.links; followed > 40 {
				return reached, followed, asking
			}
			reached = append(reached[:0], w.answerText[a.at:a.end]...)
			continue
		case asking, loopsForever:
			return reached, followed, loopsForever
		}
		if followed+1 > 40 {
			return reached, followed, asking
		}
		from := reached[:dir] // a target is read from the link's directory,
		if strings.HasPrefix(l.target, "/") {
			from = reached[:0] // or from "/"
		}
		a.state = asking
		before := followed
		if reached, followed, end = w.walk(from, l.target, followed+1); end != answered {
			a.state = unasked // past 40 links: who knows how many of them are this link's
			if end == loopsForever {
				a.state = loopsForever
			}
			return reached, followed, end
		}
		at := len(w.answerText)
		w.answerText = append(w.answerText, reached...)
		*a = linkAnswer{state: answered, links: followed - before, at: at, end: len(w.answerText)}
	}
	return reached, followed, answered
}

// relativeRealpath is realpath of a relative path, walked from ".": SPEC
// §5 resolves only paths that passed the allow-list, which are absolute,
// so this is for completeness, and kept plain.
func relativeRealpath(p string, links map[string]modelLink) (string, bool) {
	reached := "."
	todo := strings.Split(p, "/")
	for followed := 0; len(todo) > 0; {
		name := todo[0]
		todo = todo[1:]
		if name == "" || name == "." {
			continue
		}
		next := path.Join(reached, name)
		link, isLink := links[next]
		if name == ".." || !isLink {
			reached = next
			continue
		}
		if followed++; followed > 40 {
			return "", false
		}
		if strings.HasPrefix(link.target, "/") {
			reached = "/"
		}
		todo = append(strings.Split(link.target, "/"), todo...)
	}
	return reached, true
}

// hasLinks reports whether the world holds a link. (A spec without link
// lines has none: most worlds, which need not build the map to say so.)
func (w *modelWorld) hasLinks() bool { return len(w.base.spec.Links) > 0 && len(w.base.linkMap()) > 0 }

// anyPrefixIsLink reports whether clean, or a path made of its first
// components, is a link; linkLength says which lengths link paths have.
func anyPrefixIsLink(clean string, links map[string]modelLink, linkLength []bool) bool {
	for i := 1; i <= len(clean) && i < len(linkLength); i++ {
		if (i == len(clean) || clean[i] == '/') && linkLength[i] {
			if _, ok := links[clean[:i]]; ok {
				return true
			}
		}
	}
	return false
}

// linkMap reads the link lines. SPEC §13 makes no link with an empty
// target or at "/", and neither does a real file system, so those lines
// are dropped.
func (b *modelBase) linkMap() map[string]modelLink {
	if b.fill(linksBuilt) {
		if b.links == nil {
			b.links = make(map[string]modelLink, len(b.spec.Links))
		}
		for _, l := range b.spec.Links { // in order: a later line replaces an earlier one, in its place
			if at := core.Canonical(l.Path); l.Target != "" && at != "/" {
				i := len(b.links)
				if old, ok := b.links[at]; ok {
					i = old.index
				}
				b.links[at] = modelLink{target: l.Target, index: i}
				for len(b.linkLength) <= len(at) {
					b.linkLength = append(b.linkLength, false)
				}
				b.linkLength[len(at)] = true
			}
		}
	}
	return b.links
}

// read is VFS.Read of a path already cleaned.
func (w *modelWorld) read(clean string) (string, bool) {
	if d, ok := w.written.get(clean); ok {
		return d, true
	}
	return w.base.fileTable().get(clean)
}

// write is VFS.Write to a path already cleaned.
func (w *modelWorld) write(clean, data string) {
	w.written.put(clean, data)
}

func (b *modelBase) fileTable() *modelTable[string, string] {
	if b.fill(filesBuilt) {
		b.files.reset(len(b.spec.Files))
		for _, f := range b.spec.Files { // in order: a later file replaces an earlier one
			b.files.put(core.Canonical(f.Path), f.Data)
		}
	}
	return &b.files
}

func (b *modelBase) routeTable() *modelTable[modelRoute, string] {
	if b.fill(routesBuilt) {
		b.routes.reset(len(b.spec.Routes))
		for _, r := range b.spec.Routes { // in order: a later route replaces an earlier one
			b.routes.put(modelRoute{hostKey(r.Host), r.Path}, r.Body)
		}
	}
	return &b.routes
}

func (b *modelBase) dnsTable() *modelTable[string, int] {
	if b.fill(dnsBuilt) {
		b.dns.reset(len(b.spec.DNS))
		for i, d := range b.spec.DNS { // in order: a later line replaces an earlier one
			b.dns.put(hostKey(d.Host), i)
		}
	}
	return &b.dns
}

// fetch is Net.Fetch: the body routed for host, compared as the resolver
// compares names (hostKey), and path, byte for byte.
func (w *modelWorld) fetch(host, path string) (string, bool) {
	if len(w.base.spec.Routes) == 0 {
		return "", false
	}
	return w.base.routeTable().get(modelRoute{hostKey(host), path})
}

// call is Tools.Call: the scenario's canned output for the tool (the last
// one given wins), else a built-in tool, else nothing.
func (w *modelWorld) call(name, input string) (string, bool) {
	outs := w.base.spec.ToolOutputs
	for i := len(outs) - 1; i >= 0; i-- {
		if outs[i].Name == name {
			return outs[i].Output, true
		}
	}
	if name == "echo" {
		return input, true
	}
	if name == "summarize" {
		return "summary of " + strconv.Itoa(len(input)) + " bytes", true
	}
	return "", false
}

// resolve is Net.Resolve (SPEC §6): a dns line of the scenario wins, its
// addresses answered in turn; else the static answer for the name.
func (w *modelWorld) resolve(host string) netip.Addr {
	name := hostKey(host)
	if lines := w.base.spec.DNS; len(lines) > 0 {
		if i, ok := w.base.dnsTable().get(name); ok && len(lines[i].Addrs) > 0 {
			if len(w.turns) == 0 { // the first resolve of the run: every line at its first answer
				w.turns = slices.Grow(w.turns, len(lines))[:len(lines)]
				clear(w.turns)
			}
			addrs, turn := lines[i].Addrs, w.turns[i]
			w.turns[i] = (turn + 1) % len(addrs) // cycling: this is how rebinding is modelled
			return addrs[turn]
		}
	}
	return staticAnswer(name)
}

// tickClock is SPEC §7's clock: start, start+step, start+2·step, … Ticks
// never wrap. Once the next tick would pass 2^63−1, past is set for good:
// that tick, and every one after it, is past every wall budget. Below
// −2^63 the clock stays at math.MinInt64: the SPEC halts nothing there,
// and a clock run backwards charges a negative wall no budget refuses.
type tickClock struct {
	next, step int64
	past       bool
}

// now returns the next tick, and past when it is beyond 2^63−1 (the tick
// is then meaningless).
func (c *tickClock) now() (tick int64, past bool) {
	tick, past = c.next, c.past
	switch {
	case c.past:
	case c.step > 0 && c.next > math.MaxInt64-c.step:
		c.past = true
	case c.step < 0 && c.next < math.MinInt64-c.step:
		c.next = math.MinInt64
	default:
		c.next += c.step
	}
	return tick, past
}
