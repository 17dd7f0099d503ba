// Package refworld is the harness's world: the world a scenario.WorldSpec
// describes, deterministic and in memory (SPEC §1) — a flat VFS keyed by
// canonical path whose links are followed on every Read, Write and
// Realpath (SPEC §13); routes keyed by normalized host and path; a DNS
// table keyed by normalized host whose answers cycle; the built-in tools
// "echo" (its input) and "summarize" ("summary of N bytes"), which canned
// tool outputs override or add to; and a tick clock that never wraps
// (SPEC §7) — with the journal of SPEC §1 kept on the way in, the per-op
// cap on what a sandbox sends into it, and the observers the oracle reads
// after every op (Journal, Fingerprint, ClockReads, Lookup). The sandbox
// under test sees it as a core.World; the harness alone sees the rest.
//
// A Template prepares a WorldSpec once (paths canonical, hosts
// normalized); each World started from it keeps only what changed: its
// writes, DNS cursors and clock.
package refworld

import (
	"encoding/binary"
	"hash/maphash"
	"maps"
	"net/netip"
	"slices"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Template is a world's initial state, prepared once; any number of Refs,
// on any goroutines, start from it.
type Template struct {
	base     *prepared
	pristine *plainWorld // a world nobody writes: the template's own content, for Fingerprint
	spec     scenario.WorldSpec
}

// Prepare prepares the world s describes.
func Prepare(s scenario.WorldSpec) *Template {
	t := new(Template)
	t.Prepare(s)
	return t
}

// Prepare makes t the template of the world s describes, reusing the
// memory of what t was the template of before. Call it only on a template
// no world in use started from.
func (t *Template) Prepare(s scenario.WorldSpec) {
	t.base, t.spec = prepare(t.base, s), s
	if t.pristine == nil {
		t.pristine = new(plainWorld)
	}
	t.base.restart(t.pristine)
}

// New starts a world from the template.
func (t *Template) New() *World {
	w := new(World)
	t.Renew(w)
	return w
}

// Renew makes w a world just started from the template, as New does,
// keeping the memory of its journal: a harness that judges scenario after
// scenario starts each run in the world of a run judged before. Call it
// only on a world nothing uses any more.
func (t *Template) Renew(w *World) {
	clear(w.journal)
	inner := w.inner
	if inner == nil {
		inner = new(plainWorld)
	}
	*w = World{tmpl: t, inner: t.base.restart(inner), journal: w.journal[:0]}
}

// Resolve returns p resolved through the template's links, as Realpath
// answers it, without journaling.
func (t *Template) Resolve(p string) (string, bool) { return t.pristine.Realpath(p) }

// New builds the world s describes: Prepare(s).New().
func New(s scenario.WorldSpec) *World { return Prepare(s).New() }

// emptied returns m emptied, or a new map when m is nil.
func emptied[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return make(map[K]V)
	}
	clear(m)
	return m
}

// World is the world a harness hands a sandbox: the plain world that
// journals every call (SPEC §1). Observing it (JournalLen, Journal,
// Fingerprint, ClockReads) is cheap enough to do after every op. A World is
// not safe for concurrent use.
type World struct {
	tmpl       *Template
	inner      *plainWorld // the world the calls act on
	fp         uint64      // the VFS fingerprint, once fpOn: XOR of what the writes took out and put in
	fpOn       bool        // Fingerprint has been read: writes keep fp current
	clockReads int64
	journal    []Entry
	op         opBytes  // the op under way: what it has sent, against its cap (BeginOp)
	endOp      []func() // OnEndOp's, called by EndOp
	standIns   bool     // SetStandIns was called
}

// SetStandIns notes that the sandbox over this world is a door that
// answers, or may answer, an op with the model's answer in the place of
// the sandbox's own (a refusal stricter than the model, a policy of its
// own, a real tree that parted from the model's): where such an answer
// says ok, the writes the door journals are judged, not what the world
// holds. Renew forgets it.
func (w *World) SetStandIns() { w.standIns = true }

// StandIns reports whether SetStandIns was called: whether an ok may
// stand in for a sandbox's own answer.
func (w *World) StandIns() bool { return w.standIns }

// Spec returns the WorldSpec the world was prepared from: what a harness
// materializes on a real disk for a sandbox that cannot be handed a World
// (SPEC §13). Its slices are shared with the caller of Prepare and must
// not be modified.
func (w *World) Spec() scenario.WorldSpec { return w.tmpl.spec }

// Read implements core.VFS. Journaled as "read p".
func (w *World) Read(p string) (string, bool) {
	if w.op.charge(len(p)) {
		w.journal = append(w.journal, Entry{Call: CallRead, Name: p})
	}
	return w.inner.Read(p)
}

// Write implements core.VFS. Journaled as "write p data"; past the op's
// cap nothing of it is kept.
func (w *World) Write(p, data string) {
	if !w.op.charge(len(p) + len(data)) {
		return
	}
	w.journal = append(w.journal, Entry{Call: CallWrite, Name: p, Arg: data})
	k, ok := w.inner.Realpath(p)
	if !ok {
		return // through a loop a write reaches nothing
	}
	if w.fpOn {
		if old, ok := w.inner.at(k); ok {
			w.fp ^= fileHash(k, old)
		}
		w.fp ^= fileHash(k, data)
	}
	w.inner.store(k, data)
}

// Realpath implements core.VFS. Journaled as "realpath p -> r", a loop
// with the empty answer.
func (w *World) Realpath(p string) (string, bool) {
	r, ok := w.inner.Realpath(p)
	if w.op.charge(len(p) + len(r)) {
		w.journal = append(w.journal, Entry{Call: CallRealpath, Name: p, Arg: r})
	}
	return r, ok
}

// Resolve implements core.Net. Journaled as "resolve host -> addr".
func (w *World) Resolve(host string) netip.Addr {
	a := w.inner.Resolve(host)
	if w.op.charge(len(host)) {
		w.journal = append(w.journal, Entry{Call: CallResolve, Name: host, Addr: a})
	}
	return a
}

// Fetch implements core.Net. Journaled as "fetch host addr path".
func (w *World) Fetch(host string, addr netip.Addr, path string) (string, bool) {
	if w.op.charge(len(host) + len(path)) {
		w.journal = append(w.journal, Entry{Call: CallFetch, Name: host, Arg: path, Addr: addr})
	}
	return w.inner.Fetch(host, addr, path)
}

// Call implements core.Tools. Journaled as "call name input".
func (w *World) Call(name, input string) (string, bool) {
	if w.op.charge(len(name) + len(input)) {
		w.journal = append(w.journal, Entry{Call: CallTool, Name: name, Arg: input})
	}
	return w.inner.Call(name, input)
}

// Now implements core.Clock. Reads are counted, not journaled.
func (w *World) Now() (int64, bool) {
	w.clockReads++
	return w.inner.Now()
}

// Lookup returns the content at p, links followed, without journaling:
// for observers, never for sandboxes.
func (w *World) Lookup(p string) (string, bool) { return w.inner.Read(p) }

// PeekResolve returns what Resolve would answer for host now, without
// journaling and without moving the host's DNS line on: for a harness
// that must know the family of the next answer before it gives it (a DNS
// server answering an A and an AAAA query of one lookup with one answer,
// SPEC §14), never for sandboxes.
func (w *World) PeekResolve(host string) netip.Addr { return w.inner.peekResolve(host) }

// ResolveAt returns what the n-th resolve of host (0 the first, names
// compared as SPEC §6 does) answers, counted from the world's start, without
// journaling and whatever the host's DNS line has done since: for a door
// that must know the model's answer, the model resolving once per fetch,
// when its sandbox looked a host up more often; never for sandboxes.
func (w *World) ResolveAt(host string, n int) netip.Addr { return w.inner.resolveAt(host, n) }

// Route returns the body routed for host and path, without journaling.
func (w *World) Route(host, path string) (string, bool) {
	return w.inner.Fetch(host, netip.Addr{}, path)
}

// Location returns the URL the route of host and path redirects to, and
// whether it is a redirect (a "redirect" line, SPEC §10), without
// journaling: for a world that speaks HTTP, which answers such a route
// "302 Found" with that Location.
func (w *World) Location(host, path string) (string, bool) { return w.inner.location(host, path) }

// ToolOutput returns what tool name answers for input, without journaling.
func (w *World) ToolOutput(name, input string) (string, bool) { return w.inner.Call(name, input) }

// Journal returns the journal so far, in order. It is the world's own
// slice, not a copy: callers must not modify it.
func (w *World) Journal() []Entry { return w.journal }

// JournalLen returns the number of journaled calls.
func (w *World) JournalLen() int { return len(w.journal) }

// ResetJournal forgets the journal, keeping its memory, for long-running
// drivers (benchmarks) that would otherwise grow it without bound.
func (w *World) ResetJournal() {
	clear(w.journal)
	w.journal = w.journal[:0]
}

// Reserve makes room in the journal for n more entries, so that a driver
// that knows how long a run will be pays for one allocation instead of the
// appends' doublings.
func (w *World) Reserve(n int) { w.journal = slices.Grow(w.journal, n) }

// ClockReads returns how many times the clock has been read.
func (w *World) ClockReads() int64 { return w.clockReads }

// Fingerprint returns a hash of the VFS content relative to the world's
// initial state: the XOR of fileHash over the files the writes changed, as
// they are now and as the template had them. Two readings of one world are
// equal when, up to hash collisions, the VFS holds the same content; so are
// readings of two worlds started from the same template. The first call
// hashes the files written so far, and from then on writes keep it
// current, so later calls cost nothing; worlds nobody fingerprints, like a
// replay, never hash.
func (w *World) Fingerprint() uint64 {
	if !w.fpOn {
		for k, v := range w.inner.written { // XOR is order-free: the map's order cannot show
			if old, ok := w.tmpl.pristine.at(k); ok {
				w.fp ^= fileHash(k, old)
			}
			w.fp ^= fileHash(k, v)
		}
		w.fpOn = true
	}
	return w.fp
}

// Files returns the VFS as a map from canonical path to content: a copy,
// for tests and reports, not for per-op use.
func (w *World) Files() map[string]string {
	out := make(map[string]string)
	for _, f := range w.tmpl.spec.Files {
		out[spec.Canonical(f.Path)] = f.Data
	}
	maps.Copy(out, w.inner.written)
	return out
}

// fileSeed seeds fileHash. It is chosen afresh by each process: a
// fingerprint is only ever compared with another of the same process, and
// never printed.
var fileSeed = maphash.MakeSeed()

// fileHash hashes key, then data, the key's length first: where the key
// ends and the data begins is part of the hash, so moving bytes from one to
// the other changes it. XORed into the fingerprint it is order-free, so the
// fingerprint does not depend on the order files were written in. It is
// hash/maphash, not hash/fnv, which reads a byte a step: a sandbox writes
// files of megabytes, and the oracle fingerprints its world after every op
// (BenchmarkFileHash).
func fileHash(key, data string) uint64 {
	var h maphash.Hash
	h.SetSeed(fileSeed)
	h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(key))))
	h.WriteString(key)
	h.WriteString(data)
	return h.Sum64()
}
