package oracle

import (
	"bytes"
	"math"
	"net/netip"
	"path"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// modelWorld is the model's own world: SPEC §1's table, §6's resolver, §7's
// clock and §13's links, read a second time. It shares nothing with the
// harness's world (internal/refworld) but the plain types of a WorldSpec, so a misreading of the SPEC
// in one shows up as a disagreement with the other. It keeps no journal:
// the model needs only the answers.
//
// What the spec says is kept in a modelBase, which a run only reads; what a
// run changes (writes, whose turn each name's dns answers are, the clock)
// is kept here. So one base can serve every run over the same world.
type modelWorld struct {
	base    *modelBase
	written map[string]string // Clean(path) → content written by this run
	turns   map[string]int    // hostKey(host) → the index of its next dns answer
	clock   tickClock
}

// modelBase is a world's spec read into Go maps, a later line of the spec
// replacing an earlier one. It is only read once built, so it is safe for
// concurrent use; the spec's slices must not change while it is in use.
type modelBase struct {
	spec   scenario.WorldSpec
	files  map[string]string       // Clean(path) → content
	routes map[modelRoute]string   // hostKey(host) and path → body
	dns    map[string][]netip.Addr // hostKey(host) → the addresses of its dns line
	links  map[string]string       // Clean(link path) → target
}

// modelRoute is what the router matches: the host as the resolver compares
// names, and the path byte for byte.
type modelRoute struct{ host, path string }

// newModelBase reads ws. SPEC §13 makes no link with an empty target or at
// "/", and neither does a real file system, so those lines are dropped.
func newModelBase(ws scenario.WorldSpec) *modelBase { return resetModelBase(nil, ws) }

// resetModelBase is newModelBase in the maps of b when it is not nil,
// emptied first: a Checker refills the same maps scenario after scenario.
func resetModelBase(b *modelBase, ws scenario.WorldSpec) *modelBase {
	if b == nil {
		b = &modelBase{
			files:  make(map[string]string, len(ws.Files)),
			routes: make(map[modelRoute]string, len(ws.Routes)),
			dns:    make(map[string][]netip.Addr, len(ws.DNS)),
			links:  make(map[string]string, len(ws.Links)),
		}
	} else {
		clear(b.files)
		clear(b.routes)
		clear(b.dns)
		clear(b.links)
	}
	b.spec = ws
	for _, f := range ws.Files {
		b.files[path.Clean(f.Path)] = f.Data
	}
	for _, r := range ws.Routes {
		b.routes[modelRoute{hostKey(r.Host), r.Path}] = r.Body
	}
	for _, d := range ws.DNS {
		b.dns[nameKey(d.Host)] = d.Addrs
	}
	for _, l := range ws.Links {
		if at := path.Clean(l.Path); l.Target != "" && at != "/" {
			b.links[at] = l.Target
		}
	}
	return b
}

// newModelWorld starts a run over b: nothing written, every name at its
// first dns answer, the clock at its start.
func newModelWorld(b *modelBase) *modelWorld {
	return &modelWorld{base: b, written: map[string]string{}, turns: map[string]int{},
		clock: tickClock{next: b.spec.Clock.Start, step: b.spec.Clock.Step}}
}

// maxLinks is how many links one resolution follows at most (SPEC §13).
const maxLinks = 40

// realpath is VFS.Realpath (SPEC §13), read as the SPEC says it: walk the
// path's components from "/"; a component that names a link is replaced by
// the link's target, read from the link's directory (or from "/" when it
// is absolute), and the walk goes on through the target and then the rest;
// more than 40 links followed is a loop (false). The walk keeps the path
// reached so far, one "/name" per component ("" for "/"), so ".." leaves
// the directory really reached, which is no link. It is the model's own:
// core's resolution is never asked.
func (w *modelWorld) realpath(p string) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		return relativeRealpath(p, w.base.links)
	}
	reached := make([]byte, 0, 64) // most paths fit: no allocation while walking
	todo := strings.Split(p, "/")
	for followed := 0; len(todo) > 0; {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			reached = reached[:max(bytes.LastIndexByte(reached, '/'), 0)]
			continue
		}
		dir := len(reached)
		reached = append(append(reached, '/'), name...)
		target, isLink := w.base.links[string(reached)]
		if !isLink {
			continue
		}
		if followed++; followed > maxLinks {
			return "", false
		}
		reached = reached[:dir] // the target is read from the link's directory,
		if strings.HasPrefix(target, "/") {
			reached = reached[:0] // or from "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	switch {
	case len(reached) == 0:
		return "/", true
	case string(reached) == p:
		return p, true // resolved to itself: no copy
	}
	return string(reached), true
}

// relativeRealpath is realpath of a relative path, walked from ".": SPEC
// §5 resolves only paths that passed the allow-list, which are absolute,
// so this is for completeness.
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
		if followed++; followed > maxLinks {
			return "", false
		}
		if strings.HasPrefix(target, "/") {
			reached = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return reached, true
}

// hasLinks reports whether the world holds a link: in a world without
// links a path resolves to its Clean (SPEC §13).
func (w *modelWorld) hasLinks() bool { return len(w.base.links) > 0 }

// hasDNSLine reports whether the scenario has a dns line for host, names
// compared as SPEC §6 compares them: then host is a name of its own, even
// when it is spelled as an IP literal.
func (w *modelWorld) hasDNSLine(host string) bool {
	_, ok := w.base.dns[nameKey(host)]
	return ok
}

// read is VFS.Read of a path already cleaned.
func (w *modelWorld) read(clean string) (string, bool) {
	if d, ok := w.written[clean]; ok {
		return d, true
	}
	d, ok := w.base.files[clean]
	return d, ok
}

// write is VFS.Write to a path already cleaned.
func (w *modelWorld) write(clean, data string) { w.written[clean] = data }

// fetch is Net.Fetch: the body routed for host, compared as the resolver
// compares names (hostKey), and path, byte for byte.
func (w *modelWorld) fetch(host, path string) (string, bool) {
	body, ok := w.base.routes[modelRoute{hostKey(host), path}]
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
	switch name {
	case "echo":
		return input, true
	case "summarize":
		return "summary of " + strconv.Itoa(len(input)) + " bytes", true
	}
	return "", false
}

// resolve is Net.Resolve (SPEC §6): a dns line of the scenario wins, its
// addresses answered in turn (this is how rebinding is modelled); else the
// static answer for the name, a port after it dropped.
func (w *modelWorld) resolve(host string) netip.Addr {
	name := nameKey(host)
	addrs := w.base.dns[name]
	if len(addrs) == 0 {
		return staticAnswer(name)
	}
	turn := w.turns[name]
	w.turns[name] = (turn + 1) % len(addrs)
	return addrs[turn]
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

// redirects reports whether the world answers host and path with a
// redirect (a "redirect" line, SPEC §10) whose Location stays on host: a
// path, or a URL of the same host (its name as SPEC §6 looks it up).
func (w *modelWorld) redirects(host, path string) bool {
	loc, ok := w.base.redirect(host, path)
	if !ok {
		return false
	}
	return spec.StaysOnHost(loc, host)
}

// redirect returns the URL of the redirect route for host and path, the
// last such line of the spec, when the route is one.
func (b *modelBase) redirect(host, path string) (string, bool) {
	url, ok := "", false
	for _, r := range b.spec.Routes {
		if r.Path == path && hostKey(r.Host) == hostKey(host) {
			url, ok = r.Body, r.Redirect
		}
	}
	return url, ok
}
