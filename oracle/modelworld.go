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
	written map[string]string // Clean(path) → content written by this run; nil until the first write of any run
	turns   []int             // per dns line: whose turn it is; empty until the run's first resolve
	clock   tickClock
}

// modelBase is a world's spec, and the maps the model reads it through.
// Each map is built the first time an op needs it (most scenarios never
// fetch, many never read), so starting a world costs nothing per file;
// prepare builds them all, after which a base is only read and may be
// shared. The spec's slices are read then, so they must not change while
// the base is in use. A base a check prepared for itself is reset for the
// next check's world (reset), keeping the maps' memory.
type modelBase struct {
	spec   core.WorldSpec
	files  map[string]string     // Clean(path) → content
	routes map[modelRoute]string // hostKey(host) and path → body
	dns    map[string]int        // hostKey(host) → the index of its (last) dns line
	links  map[string]string     // Clean(link path) → target
	// longestLink is the length of the longest link path: a walk need not
	// look a longer path up.
	longestLink int
	built       mapSet // which maps hold spec's entries
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
	b.spec, b.built, b.longestLink = ws, 0, 0
	clear(b.files)
	clear(b.routes)
	clear(b.dns)
	clear(b.links)
}

// prepare builds every map, so that the base is read-only from then on.
func (b *modelBase) prepare() *modelBase {
	b.fileMap()
	b.routeMap()
	b.dnsMap()
	b.linkMap()
	return b
}

// fill reports whether the map named m must be filled now (it is not
// yet), making it if need be, and marks it built.
func fill[K comparable, V any](b *modelBase, m mapSet, into *map[K]V, n int) bool {
	if b.built&m != 0 {
		return false
	}
	b.built |= m
	if *into == nil {
		*into = make(map[K]V, n)
	}
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
	clear(w.written)
	*w = modelWorld{base: b, written: w.written, turns: w.turns[:0], clock: tickClock{next: b.spec.Clock.Start, step: b.spec.Clock.Step}}
}

// realpath is VFS.Realpath (SPEC §13), read as the SPEC says it: walk the
// path's components from the start; a component that names a link is
// replaced by the link's target, read from the link's directory (or from
// "/" when it is absolute), and the walk goes on through the target and
// then the rest; more than 40 links followed is a loop (false). The walk
// keeps the path reached so far as text, one "/name" per component, and
// the text still to walk as a stack of pieces (a link's target on top of
// the rest of the path), so ".." leaves the directory really reached. It is
// the model's own: core's resolution is never asked.
func (w *modelWorld) realpath(p string) (string, bool) {
	links := w.base.linkMap()
	if len(links) == 0 {
		return core.Canonical(p), true
	}
	if clean := core.Canonical(p); !strings.Contains(p, "..") && !anyPrefixIsLink(clean, links, w.base.longestLink) {
		return clean, true // the walk would meet exactly the prefixes of clean, and none is a link
	}
	if !strings.HasPrefix(p, "/") {
		return relativeRealpath(p, links)
	}
	var room [256]byte
	var stack [8]string
	reached := room[:0] // "" is "/"
	pending := append(stack[:0], p)
	for followed := 0; len(pending) > 0; {
		top := len(pending) - 1
		name, rest, more := strings.Cut(pending[top], "/")
		if more {
			pending[top] = rest
		} else {
			pending = pending[:top]
		}
		switch name {
		case "", ".":
			continue
		case "..": // reached's parent was reached before: no link
			reached = reached[:max(bytes.LastIndexByte(reached, '/'), 0)]
			continue
		}
		dir := len(reached)
		reached = append(append(reached, '/'), name...)
		target, isLink := "", false
		if len(reached) <= w.base.longestLink { // no longer path is a link
			target, isLink = links[string(reached)]
		}
		if !isLink {
			continue
		}
		if followed++; followed > 40 {
			return "", false
		}
		reached = reached[:dir] // a target is read from the link's directory,
		if strings.HasPrefix(target, "/") {
			reached = reached[:0] // or from "/"
		}
		pending = append(pending, target)
	}
	if len(reached) == 0 {
		return "/", true
	}
	return string(reached), true
}

// relativeRealpath is realpath of a relative path, walked from ".": SPEC
// §5 resolves only paths that passed the allow-list, which are absolute,
// so this is for completeness, and kept plain.
func relativeRealpath(p string, links map[string]string) (string, bool) {
	reached := "."
	todo := strings.Split(p, "/")
	for followed := 0; len(todo) > 0; {
		name := todo[0]
		todo = todo[1:]
		if name == "" || name == "." {
			continue
		}
		next := path.Join(reached, name)
		target, isLink := links[next]
		if name == ".." || !isLink {
			reached = next
			continue
		}
		if followed++; followed > 40 {
			return "", false
		}
		if strings.HasPrefix(target, "/") {
			reached = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return reached, true
}

// hasLinks reports whether the world holds a link.
func (w *modelWorld) hasLinks() bool { return len(w.base.linkMap()) > 0 }

// anyPrefixIsLink reports whether clean, or a path made of its first
// components, is a link.
func anyPrefixIsLink(clean string, links map[string]string, longest int) bool {
	for i := 1; i < len(clean) && i <= longest; i++ {
		if clean[i] == '/' {
			if _, ok := links[clean[:i]]; ok {
				return true
			}
		}
	}
	_, ok := links[clean]
	return ok
}

// linkMap reads the link lines. SPEC §13 makes no link with an empty
// target or at "/", and neither does a real file system, so those lines
// are dropped.
func (b *modelBase) linkMap() map[string]string {
	if fill(b, linksBuilt, &b.links, len(b.spec.Links)) {
		for _, l := range b.spec.Links { // in order: a later line replaces an earlier one
			if at := core.Canonical(l.Path); l.Target != "" && at != "/" {
				b.links[at] = l.Target
				b.longestLink = max(b.longestLink, len(at))
			}
		}
	}
	return b.links
}

// read is VFS.Read of a path already cleaned.
func (w *modelWorld) read(clean string) (string, bool) {
	if d, ok := w.written[clean]; ok {
		return d, true
	}
	d, ok := w.base.fileMap()[clean]
	return d, ok
}

// write is VFS.Write to a path already cleaned.
func (w *modelWorld) write(clean, data string) {
	if w.written == nil {
		w.written = make(map[string]string, 1)
	}
	w.written[clean] = data
}

func (b *modelBase) fileMap() map[string]string {
	if fill(b, filesBuilt, &b.files, len(b.spec.Files)) {
		for _, f := range b.spec.Files { // in order: a later file replaces an earlier one
			b.files[core.Canonical(f.Path)] = f.Data
		}
	}
	return b.files
}

func (b *modelBase) routeMap() map[modelRoute]string {
	if fill(b, routesBuilt, &b.routes, len(b.spec.Routes)) {
		for _, r := range b.spec.Routes { // in order: a later route replaces an earlier one
			b.routes[modelRoute{hostKey(r.Host), r.Path}] = r.Body
		}
	}
	return b.routes
}

func (b *modelBase) dnsMap() map[string]int {
	if fill(b, dnsBuilt, &b.dns, len(b.spec.DNS)) {
		for i, d := range b.spec.DNS { // in order: a later line replaces an earlier one
			b.dns[hostKey(d.Host)] = i
		}
	}
	return b.dns
}

// fetch is Net.Fetch: the body routed for host, compared as the resolver
// compares names (hostKey), and path, byte for byte.
func (w *modelWorld) fetch(host, path string) (string, bool) {
	if len(w.base.spec.Routes) == 0 {
		return "", false
	}
	body, ok := w.base.routeMap()[modelRoute{hostKey(host), path}]
	return body, ok
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
		if i, ok := w.base.dnsMap()[name]; ok && len(lines[i].Addrs) > 0 {
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
