package oracle

import (
	"math"
	"net/netip"
	"strconv"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// modelWorld is the model's own world: SPEC §1's table, §6's resolver and
// §7's clock, read a second time. It shares nothing with core's RefWorld
// but Clean (core.Canonical) and the plain types of a WorldSpec, so a
// misreading of the SPEC in one shows up as a disagreement with the other.
// It keeps no journal: the model needs only the answers.
//
// Each part of the world is built from the spec the first time an op needs
// it (most scenarios never fetch, many never read), so starting a world
// costs nothing per file. The spec's slices are read then, so they must not
// change while the world is in use.
type modelWorld struct {
	spec core.WorldSpec

	files  map[string]string            // Clean(path) → content, spec files and writes; nil until the first read or write
	routes map[string]map[string]string // hostKey(host) → path → body; nil until the first fetch
	dns    map[string]*dnsAnswers       // nil until the first resolve
	clock  tickClock
}

// dnsAnswers is one dns line and whose turn it is.
type dnsAnswers struct {
	addrs []netip.Addr
	turn  int
}

func newModelWorld(ws core.WorldSpec) *modelWorld {
	return &modelWorld{spec: ws, clock: tickClock{next: ws.Clock.Start, step: ws.Clock.Step}}
}

// read is VFS.Read of a path already cleaned.
func (w *modelWorld) read(clean string) (string, bool) {
	d, ok := w.fileMap()[clean]
	return d, ok
}

// write is VFS.Write to a path already cleaned.
func (w *modelWorld) write(clean, data string) { w.fileMap()[clean] = data }

func (w *modelWorld) fileMap() map[string]string {
	if w.files == nil {
		w.files = make(map[string]string, len(w.spec.Files)+1)
		for _, f := range w.spec.Files { // in order: a later file replaces an earlier one
			w.files[core.Canonical(f.Path)] = f.Data
		}
	}
	return w.files
}

// fetch is Net.Fetch: the body routed for host, compared as the resolver
// compares names (hostKey), and path, byte for byte.
func (w *modelWorld) fetch(host, path string) (string, bool) {
	if len(w.spec.Routes) == 0 {
		return "", false
	}
	if w.routes == nil {
		w.routes = make(map[string]map[string]string, len(w.spec.Routes))
		for _, r := range w.spec.Routes { // in order: a later route replaces an earlier one
			h := hostKey(r.Host)
			if w.routes[h] == nil {
				w.routes[h] = make(map[string]string, 1)
			}
			w.routes[h][r.Path] = r.Body
		}
	}
	body, ok := w.routes[hostKey(host)][path]
	return body, ok
}

// call is Tools.Call: the scenario's canned output for the tool (the last
// one given wins), else a built-in tool, else nothing.
func (w *modelWorld) call(name, input string) (string, bool) {
	outs := w.spec.ToolOutputs
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
	if len(w.spec.DNS) > 0 {
		if w.dns == nil {
			w.dns = make(map[string]*dnsAnswers, len(w.spec.DNS))
			for _, d := range w.spec.DNS { // in order: a later line replaces an earlier one
				w.dns[hostKey(d.Host)] = &dnsAnswers{addrs: d.Addrs}
			}
		}
		if line := w.dns[name]; line != nil && len(line.addrs) > 0 {
			a := line.addrs[line.turn]
			line.turn++
			if line.turn == len(line.addrs) {
				line.turn = 0 // cycling: this is how rebinding is modelled
			}
			return a
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
