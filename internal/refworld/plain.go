package refworld

import (
	"bytes"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

type routeKey struct{ host, path string }

// route is what the network answers for a routeKey: a body, or, for a
// redirect, the URL a 302 names (SPEC §10).
type route struct {
	body     string
	redirect bool
}

// prepared is a world's initial state, prepared once: paths canonical,
// hosts normalized. Once prepared it is immutable, so any number of plain
// worlds, on any goroutines, can start from it, and starting one copies
// nothing.
type prepared struct {
	files   map[string]string       // spec.Canonical(path) → content
	routes  map[routeKey]route      // (normalized host, path) → its answer
	dns     map[string][]netip.Addr // normalized host → its answers, never empty: hosts without answers are left out
	toolOut map[string]string       // tool name → its canned output
	links   map[string]string       // spec.Canonical(link path) → target
	clock   scenario.TickClock
}

// prepare prepares the world s describes, in the maps of old when it is
// not nil (emptied first: a harness that judges scenario after scenario
// refills the same maps). Later entries for the same key replace earlier
// ones; a DNS line without addresses takes its host out of the table.
func prepare(old *prepared, s scenario.WorldSpec) *prepared {
	t := old
	if t == nil {
		t = &prepared{
			files:   make(map[string]string, len(s.Files)),
			routes:  make(map[routeKey]route, len(s.Routes)),
			dns:     make(map[string][]netip.Addr, len(s.DNS)),
			toolOut: make(map[string]string, len(s.ToolOutputs)),
			links:   make(map[string]string, len(s.Links)),
		}
	} else {
		clear(t.files)
		clear(t.routes)
		clear(t.dns)
		clear(t.toolOut)
		clear(t.links)
	}
	t.clock = s.Clock
	for _, f := range s.Files {
		t.files[spec.Canonical(f.Path)] = f.Data
	}
	for _, r := range s.Routes {
		t.routes[routeKey{spec.NormalizeHost(r.Host), r.Path}] = route{r.Body, r.Redirect}
	}
	for _, d := range s.DNS {
		h := spec.LookupKey(d.Host)
		if len(d.Addrs) == 0 {
			delete(t.dns, h)
			continue
		}
		t.dns[h] = slices.Clone(d.Addrs) // a copy: the template must not change when the spec does
	}
	for _, o := range s.ToolOutputs {
		t.toolOut[o.Name] = o.Output
	}
	for _, l := range s.Links {
		if p := spec.Canonical(l.Path); l.Target != "" && p != "/" { // neither is a link a file system makes
			t.links[p] = l.Target
		}
	}
	return t
}

// start starts a world from t.
func (t *prepared) start() *plainWorld { return t.restart(new(plainWorld)) }

// restart makes w a world just started from t, keeping the memory of the
// maps it held: a harness that judges scenario after scenario starts each
// run in the world of a run judged before.
func (t *prepared) restart(w *plainWorld) *plainWorld {
	*w = plainWorld{base: t, written: emptied(w.written), dnsNext: emptied(w.dnsNext), clockNext: t.clock.Start}
	return w
}

// plainWorld is the world itself, deterministic and in memory (SPEC §1):
// the VFS with its links, the routes, the DNS table, the tools and the
// clock. It keeps no journal: World journals every call on its way in. It
// is not safe for concurrent use.
type plainWorld struct {
	base      *prepared         // the initial state; never written
	written   map[string]string // files written since, by canonical path
	dnsNext   map[string]int    // the index of the next answer for each host of base.dns resolved so far
	clockNext int64             // the next answer, kept by saturating addition
	clockPast bool              // the next answer would pass 2^63−1: this and every later read answer ok=false
}

// Read implements core.VFS: the content at p, links followed (SPEC §13).
func (w *plainWorld) Read(p string) (string, bool) {
	k, ok := w.base.resolve(p)
	if !ok {
		return "", false // the links loop: there is nothing to read
	}
	return w.at(k)
}

// at returns the content stored at k, a path resolved already.
func (w *plainWorld) at(k string) (string, bool) {
	if d, ok := w.written[k]; ok {
		return d, true
	}
	d, ok := w.base.files[k]
	return d, ok
}

// Write implements core.VFS: data stored at p, links followed; through a loop
// it reaches nothing.
func (w *plainWorld) Write(p, data string) {
	if k, ok := w.base.resolve(p); ok {
		w.store(k, data)
	}
}

// store stores data at k, a path resolved already.
func (w *plainWorld) store(k, data string) { w.written[k] = data }

// Realpath implements core.VFS: p resolved through the world's links, which in
// a world without them is spec.Canonical(p).
func (w *plainWorld) Realpath(p string) (string, bool) { return w.base.resolve(p) }

// Resolve implements core.Net: the next answer of the host's DNS line, which
// cycle (DNS rebinding), or SPEC §6's static answer; a host that carries a
// port is resolved by its name (spec.HostName).
func (w *plainWorld) Resolve(host string) netip.Addr {
	host = spec.HostName(host)
	h := spec.NormalizeHost(host) // the table's key
	addrs, ok := w.base.dns[h]
	if !ok {
		return spec.StaticResolve(host) // host, not h: it normalizes once, and SPEC §6 ignores exactly one trailing dot
	}
	a := addrs[w.dnsNext[h]]
	w.dnsNext[h] = (w.dnsNext[h] + 1) % len(addrs)
	return a
}

// resolveAt is what the n-th Resolve of host (0 the first) answers,
// counted from the world's start, whatever has been resolved since.
func (w *plainWorld) resolveAt(host string, n int) netip.Addr {
	host = spec.HostName(host)
	addrs, ok := w.base.dns[spec.NormalizeHost(host)]
	if !ok {
		return spec.StaticResolve(host)
	}
	return addrs[n%len(addrs)]
}

// peekResolve is what Resolve would answer for host now, without moving
// the host's DNS line on.
func (w *plainWorld) peekResolve(host string) netip.Addr {
	host = spec.HostName(host)
	h := spec.NormalizeHost(host)
	addrs, ok := w.base.dns[h]
	if !ok {
		return spec.StaticResolve(host)
	}
	return addrs[w.dnsNext[h]] // a nil map reads 0: the line's first answer
}

// Fetch implements core.Net: the body routed for host and path (a
// redirect's URL: a fetch is one request). The address is where the fetch
// goes; the routes are keyed by name.
func (w *plainWorld) Fetch(host string, _ netip.Addr, path string) (string, bool) {
	r, ok := w.base.routes[routeKey{spec.NormalizeHost(host), path}]
	return r.body, ok
}

// location is the URL the route of host and path redirects to, if it is a
// redirect.
func (w *plainWorld) location(host, path string) (string, bool) {
	r := w.base.routes[routeKey{spec.NormalizeHost(host), path}]
	return r.body, r.redirect
}

// Call implements core.Tools: a canned output if the scenario set one, else the
// built-in tools "echo" (the input) and "summarize" ("summary of N
// bytes").
func (w *plainWorld) Call(name, input string) (string, bool) {
	if out, ok := w.base.toolOut[name]; ok {
		return out, true
	}
	switch name {
	case "echo":
		return input, true
	case "summarize":
		return "summary of " + strconv.Itoa(len(input)) + " bytes", true
	}
	return "", false
}

// Now implements core.Clock.
func (w *plainWorld) Now() (int64, bool) {
	t, ok := w.clockNext, !w.clockPast
	var over bool
	w.clockNext, over = saturatingAdd(t, w.base.clock.Step)
	w.clockPast = w.clockPast || over
	return t, ok
}

// saturatingAdd is a+b, clamped to the int64 range instead of wrapping;
// over reports a sum past math.MaxInt64. (A sum below math.MinInt64 is
// clamped without a report: SPEC §7 halts only at the top.)
func saturatingAdd(a, b int64) (sum int64, over bool) {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64, true
	case b < 0 && s > a:
		return math.MinInt64, false
	}
	return s, false
}

// resolve returns p resolved through the template's links, as VFS.Realpath
// answers it (SPEC §13), and false when resolving would follow more than
// spec.MaxLinks links. In a world without links it returns spec.Canonical(p).
func (t *prepared) resolve(p string) (string, bool) {
	if len(t.links) == 0 {
		return spec.Canonical(p), true
	}
	return resolveLinks(t.links, p)
}

// resolveLinks walks p one component at a time, as SPEC §13 says: every
// component is resolved, the last one included, whether or not anything
// is stored there; a component that is a link is replaced by its target
// (an absolute target restarting from "/", a relative one from the link's
// directory), and the walk goes on with the target, then with the rest of
// the path. Empty and "." components are skipped; a ".." leaves the
// directory reached so far, links already followed, as a real file
// system's does. Following more than MaxLinks links is a loop: false.
//
// The answer is a clean path, and each of its prefixes was found to be no
// link on the way: resolving it again follows nothing.
func resolveLinks(links map[string]string, p string) (string, bool) {
	abs := strings.HasPrefix(p, "/")
	var (
		dir    = make([]byte, 0, 128) // the path reached so far: "/a/b", or "a/b" while relative
		starts = make([]int, 0, 16)   // where each component of dir starts, its separator included
		later  = make([]string, 0, 4) // what is left of the paths links interrupted, the latest last
		hops   int
	)
	for rest := p; rest != "" || len(later) > 0; {
		if rest == "" {
			rest, later = later[len(later)-1], later[:len(later)-1]
			continue
		}
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			if n := len(starts); n > 0 && !lastIsDotDot(dir, starts) {
				dir, starts = dir[:starts[n-1]], starts[:n-1]
				continue
			}
			if abs {
				continue // the root's parent is the root
			}
			// A relative path may climb above its start, as Clean keeps it.
		}
		starts = append(starts, len(dir))
		if abs || len(starts) > 1 {
			dir = append(dir, '/')
		}
		dir = append(dir, name...)
		if name == ".." {
			continue
		}
		target, isLink := links[string(dir)] // a map lookup by string(bytes) copies nothing
		if !isLink {
			continue
		}
		if hops++; hops > spec.MaxLinks {
			return "", false
		}
		n := len(starts) - 1
		dir, starts = dir[:starts[n]], starts[:n] // the link's directory
		if strings.HasPrefix(target, "/") {
			dir, starts, abs = dir[:0], starts[:0], true
		}
		if rest != "" {
			later = append(later, rest)
		}
		rest = target
	}
	switch {
	case len(dir) == 0 && abs:
		return "/", true
	case len(dir) == 0:
		return ".", true
	case string(dir) == p:
		return p, true // resolved to itself, as most paths are: no copy
	}
	return string(dir), true
}

// lastIsDotDot reports whether dir's last component is "..".
func lastIsDotDot(dir []byte, starts []int) bool {
	return string(bytes.TrimPrefix(dir[starts[len(starts)-1]:], []byte("/"))) == ".."
}
