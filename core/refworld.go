package core

import (
	"maps"
	"math"
	"net/netip"
	"slices"
	"strconv"

	"github.com/sbxfuzz/sbxfuzz/internal/textscan"
)

// WorldSpec describes a world's initial state. Later entries for the same
// key replace earlier ones. The zero WorldSpec is an empty VFS, no routes,
// no DNS lines, the built-in tools, and a clock stopped at 0.
type WorldSpec struct {
	Files       []File
	Routes      []Route
	DNS         []DNSRecord
	ToolOutputs []ToolOutput
	Links       []Link
	Clock       TickClock
}

// File is a VFS entry: content stored at Canonical(Path).
type File struct{ Path, Data string }

// Route is a body the network answers for a host and path. Hosts are
// matched after NormalizeHost.
type Route struct{ Host, Path, Body string }

// DNSRecord makes the resolver answer Addrs for Host in turn, cycling: this
// is how DNS rebinding is modelled. Hosts are matched after NormalizeHost.
type DNSRecord struct {
	Host  string
	Addrs []netip.Addr
}

// ToolOutput makes tool Name answer Output whatever its input.
type ToolOutput struct{ Name, Output string }

// Link is a symbolic link at Canonical(Path) whose target is Target, a
// world path, absolute or relative to Path's directory (SPEC §13). A link
// with an empty Target, or at "/", is no link: a real file system makes
// neither.
type Link struct{ Path, Target string }

// TickClock answers Start, Start+Step, Start+2·Step, … on successive reads
// (SPEC §7). Ticks never wrap: one that would pass 2^63−1 is answered as
// math.MaxInt64 with ok=false, which halts max_wall (see Clock); for a
// negative Step, one below −2^63 is answered as math.MinInt64, still ok.
type TickClock struct{ Start, Step int64 }

// At returns the k-th answer of the clock (k from 0), and false when the
// true tick Start+k·Step would pass 2^63−1.
func (c TickClock) At(k int64) (tick int64, ok bool) {
	if k <= 0 || c.Step == 0 {
		return c.Start + k*c.Step, true
	}
	// room is the distance from Start to the end of int64 the clock moves
	// towards, and step the size of Step: both exact in uint64, whatever
	// the signs (Start may be negative, Step may be math.MinInt64).
	room, step, end := uint64(math.MaxInt64)-uint64(c.Start), uint64(c.Step), int64(math.MaxInt64)
	if c.Step < 0 {
		room, step, end = uint64(c.Start)+1<<63, -uint64(c.Step), math.MinInt64 // Start - MinInt64
	}
	if uint64(k) > room/step {
		return end, c.Step < 0
	}
	return c.Start + k*c.Step, true // the true value fits, so wrapping arithmetic yields it
}

type routeKey struct{ host, path string }

// WorldTemplate is a world's initial state, prepared once: paths
// canonical, hosts normalized. Once prepared it is immutable, so any number
// of RefWorlds, on any goroutines, can start from one template, and
// starting one copies nothing: the oracle starts two worlds per scenario
// (the watched run and the replay), and the fuzz targets start thousands
// from the same few templates.
type WorldTemplate struct {
	files    table[string, string]
	routes   table[routeKey, string]
	dns      table[string, []netip.Addr] // normalized host → its answers, never empty: hosts without answers are left out
	addrs    []netip.Addr                // the answers' backing array: a copy, so the template does not change when the spec does
	toolOut  table[string, string]
	links    table[string, string] // Canonical(link path) → target
	linkLens lengthSet             // the lengths of the links' paths
	clock    TickClock
	spec     WorldSpec // what it was prepared from, for sandboxes that build the world for real (SPEC §13)
	// prepared counts the template's Prepare calls: a world renewed after
	// the latest one (RefWorld.prepared equal) knows the links it has now.
	prepared uint64
}

// PrepareWorld prepares the world s describes.
func PrepareWorld(s WorldSpec) *WorldTemplate {
	t := new(WorldTemplate)
	t.Prepare(s)
	return t
}

// Prepare makes t the template of the world s describes, reusing the
// memory t holds from an earlier Prepare: a harness that judges scenario
// after scenario prepares each world into the template of one judged
// before. Call it only on a template no world in use started from, and
// nothing else reads. Tables stay empty, allocating nothing, when the spec
// has no entries for them: most worlds have no DNS lines or tool outputs.
func (t *WorldTemplate) Prepare(s WorldSpec) {
	t.clock, t.spec = s.Clock, s
	t.prepared++
	t.files.reset(len(s.Files))
	for _, f := range s.Files {
		t.files.put(Canonical(f.Path), f.Data)
	}
	t.routes.reset(len(s.Routes))
	for _, r := range s.Routes {
		t.routes.put(routeKey{NormalizeHost(r.Host), r.Path}, r.Body)
	}
	t.prepareDNS(s.DNS)
	t.toolOut.reset(len(s.ToolOutputs))
	for _, o := range s.ToolOutputs {
		t.toolOut.put(o.Name, o.Output)
	}
	t.links.reset(len(s.Links))
	t.linkLens = lengthSet{}
	for _, l := range s.Links {
		if p := Canonical(l.Path); l.Target != "" && p != "/" {
			t.links.put(p, l.Target)
			t.linkLens.add(len(p))
		}
	}
}

// prepareDNS reads the dns lines: a later line for a host replaces an
// earlier one, and a line with no address takes the host out of the table.
func (t *WorldTemplate) prepareDNS(lines []DNSRecord) {
	n := 0
	for _, d := range lines {
		n += len(d.Addrs)
	}
	t.dns.reset(len(lines))
	t.addrs = slices.Grow(t.addrs[:0], n)
	for _, d := range lines {
		at := len(t.addrs)
		t.addrs = append(t.addrs, d.Addrs...)
		t.dns.put(NormalizeHost(d.Host), t.addrs[at:len(t.addrs):len(t.addrs)])
	}
	t.dns.dropIf(func(addrs []netip.Addr) bool { return len(addrs) == 0 })
}

// New starts a world from the template.
func (t *WorldTemplate) New() *RefWorld {
	w := new(RefWorld)
	t.Renew(w)
	return w
}

// Renew makes w a world just started from the template, as New does, in
// the memory w holds (its journal, the files written, its DNS cursors): a
// harness that judges scenario after scenario starts each run in the world
// of a run judged before. Call it only on a world nothing uses any more: no
// sandbox holds it, and no entry of its journal is read again.
func (t *WorldTemplate) Renew(w *RefWorld) {
	clear(w.journal)
	w.written.reset(0)
	w.memo.reset(0) // what it learned of the links of its last template
	w.walked.reset(0)
	*w = RefWorld{
		base: t, prepared: t.prepared, clockNext: t.clock.Start, resolved: "/", // "/" is canonical: never "", which is not
		written: w.written, dnsNext: w.dnsNext[:0], journal: w.journal[:0], memo: w.memo, walked: w.walked,
	}
}

// LearnLinks gives w what from has learned of their template's links, and
// the paths its walks resolved, so that w does not walk again what from
// did: a replay resolves the paths its first run resolved. A world's links
// never change (a write makes files, never links), so what one world of a
// template learned holds for every world of it. It does nothing unless
// both worlds were renewed from the same template since it was last
// prepared. It reads from as any observer does: nothing may be calling
// into from meanwhile.
func (w *RefWorld) LearnLinks(from *RefWorld) {
	if w == from || w.base == nil || w.base != from.base || w.prepared != from.prepared || w.base.prepared != w.prepared {
		return
	}
	w.memo.links = append(w.memo.links[:0], from.memo.links...)
	w.memo.text = append(w.memo.text[:0], from.memo.text...)
	w.walked.copyOf(&from.walked)
}

// RefWorld is the reference World: deterministic, in memory, journaling
// every call. Observing it (JournalLen, Journal, Fingerprint, ClockReads) is
// cheap enough to do after every op. A RefWorld is not safe for concurrent
// use; start one per sandbox, with NewWorld or WorldTemplate.New.
type RefWorld struct {
	base       *WorldTemplate        // the initial state; never written
	written    table[string, string] // files written since, by canonical path
	fp         uint64                // the VFS fingerprint, once fpOn: XOR of what the writes took out and put in
	fpOn       bool                  // Fingerprint has been read: writes keep fp current
	dnsNext    []int                 // the next answer for each host of base.dns, by its index; empty until the first resolve of a DNS host
	clockNext  int64                 // the next answer: clock.At(clockReads), kept by saturating addition
	clockPast  bool                  // the next answer would pass 2^63−1: this and every later read answer ok=false
	clockReads int64
	journal    []Entry
	resolved   string   // Realpath's latest answer (at first "/"), canonical: the path the next Read or Write most likely names
	memo       linkMemo // what its walks learned of base's links, which no call changes
	// walked holds the answer for each path whose resolution took a walk:
	// a replay asks for the same paths as the run before it (LearnLinks).
	walked   table[string, walkAnswer]
	prepared uint64  // base.prepared when the world was renewed: which of base's preparations memo and walked are of
	op       opBytes // what the op under way has sent, against its cap (LimitOp)
}

// Spec returns the WorldSpec the world was prepared from: what a harness
// materializes on a real disk for a sandbox that cannot be handed a World
// (SPEC §13). Its slices are shared with the caller of PrepareWorld and
// must not be modified.
func (w *RefWorld) Spec() WorldSpec { return w.base.spec }

// NewWorld builds the world s describes: PrepareWorld(s).New().
func NewWorld(s WorldSpec) *RefWorld { return PrepareWorld(s).New() }

// file returns the content at canonical path key.
func (w *RefWorld) file(key string) (string, bool) {
	if d, ok := w.written.get(key); ok {
		return d, true
	}
	return w.base.files.get(key)
}

// Read implements VFS.
func (w *RefWorld) Read(p string) (string, bool) {
	if w.op.charge(len(p)) {
		w.journal = append(w.journal, Entry{Call: CallRead, Name: p})
	}
	k, ok := w.key(p)
	if !ok {
		return "", false // the links loop: there is nothing to read
	}
	return w.file(k)
}

// Write implements VFS.
func (w *RefWorld) Write(p, data string) {
	if !w.op.charge(len(p) + len(data)) {
		return // past the op's cap: nothing of it is kept
	}
	w.journal = append(w.journal, Entry{Call: CallWrite, Name: p, Arg: data})
	if k, ok := w.key(p); ok { // through a loop a write reaches nothing
		w.store(k, data)
	}
}

// key is the key p's content is stored under: p resolved through the
// world's links, as a real file system follows them whether or not the
// sandbox asked Realpath first (SPEC §13), and false when they loop. A
// sandbox reads and writes the path Realpath answered it, which is resolved
// already (every prefix of it was found to be no link); so that path is
// not resolved a second time.
func (w *RefWorld) key(p string) (string, bool) {
	if p == w.resolved {
		return p, true
	}
	return w.resolve(p)
}

// resolve is base.Resolve(p), remembering what the walk learns of the
// links for the world's later walks, and the answer for p itself when it
// took a walk.
func (w *RefWorld) resolve(p string) (string, bool) {
	t := w.base
	if t.links.len() == 0 {
		return Canonical(p), true
	}
	if meetsNoLink(&t.links, &t.linkLens, p) {
		return p, true
	}
	if a, ok := w.walked.get(p); ok {
		return a.path, a.ok
	}
	r, ok := walkLinks(&t.links, &t.linkLens, &w.memo, p)
	w.walked.put(p, walkAnswer{r, ok})
	return r, ok
}

// walkAnswer is what a walk answered for a path.
type walkAnswer struct {
	path string
	ok   bool
}

// Realpath implements VFS: p resolved through the world's links, which in
// a world without them is Canonical(p). A loop is journaled with the empty
// answer.
func (w *RefWorld) Realpath(p string) (string, bool) {
	r, ok := w.resolve(p)
	if w.op.charge(len(p) + len(r)) {
		w.journal = append(w.journal, Entry{Call: CallRealpath, Name: p, Arg: r})
	}
	if ok {
		w.resolved = r
	}
	return r, ok
}

func (w *RefWorld) store(key, data string) {
	if w.fpOn {
		if old, ok := w.file(key); ok {
			w.fp ^= fileHash(key, old)
		}
		w.fp ^= fileHash(key, data)
	}
	w.written.put(key, data)
}

// Resolve implements Net.
func (w *RefWorld) Resolve(host string) netip.Addr {
	h := NormalizeHost(host) // once: SPEC §6 ignores exactly one trailing dot
	var a netip.Addr
	if i := w.base.dns.find(h); i >= 0 {
		if len(w.dnsNext) == 0 { // the first resolve of a DNS host: every host at its first answer
			w.dnsNext = slices.Grow(w.dnsNext, w.base.dns.len())[:w.base.dns.len()]
			clear(w.dnsNext)
		}
		addrs, next := w.base.dns.pairs[i].v, &w.dnsNext[i]
		a = addrs[*next]
		*next = (*next + 1) % len(addrs)
	} else {
		a = staticResolve(h)
	}
	if w.op.charge(len(host)) {
		w.journal = append(w.journal, Entry{Call: CallResolve, Name: host, Addr: a})
	}
	return a
}

// Fetch implements Net.
func (w *RefWorld) Fetch(host string, addr netip.Addr, path string) (string, bool) {
	if w.op.charge(len(host) + len(path)) {
		w.journal = append(w.journal, Entry{Call: CallFetch, Name: host, Arg: path, Addr: addr})
	}
	return w.Route(host, path)
}

// Call implements Tools.
func (w *RefWorld) Call(name, input string) (string, bool) {
	if w.op.charge(len(name) + len(input)) {
		w.journal = append(w.journal, Entry{Call: CallTool, Name: name, Arg: input})
	}
	return w.ToolOutput(name, input)
}

// Now implements Clock.
func (w *RefWorld) Now() (int64, bool) {
	t, ok := w.clockNext, !w.clockPast
	var over bool
	w.clockNext, over = saturatingAdd(t, w.base.clock.Step)
	w.clockPast = w.clockPast || over
	w.clockReads++
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

// Lookup returns the content at p, links followed, without journaling:
// for observers, never for sandboxes.
func (w *RefWorld) Lookup(p string) (string, bool) {
	k, ok := w.base.Resolve(p)
	if !ok {
		return "", false
	}
	return w.file(k)
}

// PeekResolve returns what Resolve(host) would answer now, without
// journaling or advancing the DNS table.
func (w *RefWorld) PeekResolve(host string) netip.Addr {
	h := NormalizeHost(host)
	if i := w.base.dns.find(h); i >= 0 {
		next := 0
		if len(w.dnsNext) > 0 {
			next = w.dnsNext[i]
		}
		return w.base.dns.pairs[i].v[next]
	}
	return staticResolve(h)
}

// Route returns the body routed for host and path, without journaling.
func (w *RefWorld) Route(host, path string) (string, bool) {
	return w.base.routes.get(routeKey{NormalizeHost(host), path})
}

// ToolOutput returns what tool name answers for input, without journaling:
// a canned output if the scenario set one, else the built-in tools "echo"
// (the input) and "summarize" ("summary of N bytes").
func (w *RefWorld) ToolOutput(name, input string) (string, bool) {
	if out, ok := w.base.toolOut.get(name); ok {
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

// Journal returns the journal so far, in order. It is the world's own
// slice, not a copy: callers must not modify it.
func (w *RefWorld) Journal() []Entry { return w.journal }

// JournalLen returns the number of journaled calls.
func (w *RefWorld) JournalLen() int { return len(w.journal) }

// ResetJournal forgets the journal, keeping its memory, for long-running
// drivers (benchmarks) that would otherwise grow it without bound.
func (w *RefWorld) ResetJournal() {
	clear(w.journal)
	w.journal = w.journal[:0]
}

// Reserve makes room in the journal for n more entries, so that a driver
// that knows how long a run will be (the oracle: at most two entries an op,
// realpath and read, realpath and write, or resolve and fetch)
// pays for one allocation instead of the appends' doublings.
func (w *RefWorld) Reserve(n int) { w.journal = slices.Grow(w.journal, n) }

// ClockReads returns how many times the clock has been read.
func (w *RefWorld) ClockReads() int64 { return w.clockReads }

// Fingerprint returns a hash of the VFS content relative to the world's
// initial state: the XOR of fileHash over the files as they are now and
// over the files as the template had them. Two readings of one world are
// equal when, up to hash collisions, the VFS holds the same content; so are
// readings of two worlds started from the same template. (Worlds from
// different templates are not comparable by fingerprint.) A world's
// initial content is never hashed, so preparing a world costs no more for
// large files; the first call hashes the files written so far, and from
// then on writes keep it current, so later calls cost nothing. (Worlds
// nobody fingerprints, like a replay, never hash.)
func (w *RefWorld) Fingerprint() uint64 {
	if !w.fpOn {
		for k, v := range w.written.all { // XOR is order-free: the order cannot show
			if old, ok := w.base.files.get(k); ok {
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
func (w *RefWorld) Files() map[string]string {
	out := make(map[string]string, w.base.files.len()+w.written.len())
	maps.Insert(out, w.base.files.all)
	maps.Insert(out, w.written.all)
	return out
}

// fileHash hashes key, then data, with textscan.Hash, which mixes in each
// string's length first: where the key ends and the data begins is part
// of the hash, so moving bytes from one to the other changes it. XORed
// into the fingerprint it is order-free, so the fingerprint does not depend
// on the order files were written in.
func fileHash(key, data string) uint64 {
	h := textscan.Hash(0x2545f4914f6cdd1d, key)
	return textscan.Hash(h^0xff51afd7ed558ccd, data)
}
