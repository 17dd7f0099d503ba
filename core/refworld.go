package core

import (
	"encoding/binary"
	"maps"
	"math"
	"net/netip"
	"strconv"
)

// WorldSpec describes a world's initial state. Later entries for the same
// key replace earlier ones. The zero WorldSpec is an empty VFS, no routes,
// no DNS lines, the built-in tools, and a clock stopped at 0.
type WorldSpec struct {
	Files       []File
	Routes      []Route
	DNS         []DNSRecord
	ToolOutputs []ToolOutput
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

// TickClock answers Start, Start+Step, Start+2·Step, … on successive reads,
// saturating at math.MaxInt64 (or, for a negative Step, math.MinInt64)
// instead of wrapping.
type TickClock struct{ Start, Step int64 }

// At returns the k-th answer of the clock (k from 0).
func (c TickClock) At(k int64) int64 {
	if k <= 0 || c.Step == 0 {
		return c.Start + k*c.Step
	}
	// room is the distance from Start to the end of int64 the clock moves
	// towards, and step the size of Step: both exact in uint64, whatever
	// the signs (Start may be negative, Step may be math.MinInt64).
	room, step, end := uint64(math.MaxInt64)-uint64(c.Start), uint64(c.Step), int64(math.MaxInt64)
	if c.Step < 0 {
		room, step, end = uint64(c.Start)+1<<63, -uint64(c.Step), math.MinInt64 // Start - MinInt64
	}
	if uint64(k) > room/step {
		return end
	}
	return c.Start + k*c.Step // the true value fits, so wrapping arithmetic yields it
}

type routeKey struct{ host, path string }

type dnsAnswers struct {
	addrs []netip.Addr
	next  int
}

// RefWorld is the reference World: deterministic, in memory, journaling
// every call. Observing it (JournalLen, Journal, Fingerprint, ClockReads) is
// cheap enough to do after every op. A RefWorld is not safe for concurrent
// use; build one per sandbox with NewWorld.
type RefWorld struct {
	files      map[string]string
	fp         uint64 // XOR of fileHash over the VFS, once fpValid
	fpValid    bool
	routes     map[routeKey]string
	dns        map[string]*dnsAnswers
	toolOut    map[string]string
	clock      TickClock
	clockNext  int64 // the next answer: clock.At(clockReads), kept by saturating addition
	clockReads int64
	journal    []Entry
}

// NewWorld builds the world s describes.
func NewWorld(s WorldSpec) *RefWorld {
	// Maps stay nil while empty (a nil map answers lookups): campaigns
	// build three worlds per scenario, and most have no DNS lines.
	w := &RefWorld{
		files:     make(map[string]string, len(s.Files)),
		clock:     s.Clock,
		clockNext: s.Clock.Start,
	}
	for _, f := range s.Files {
		w.files[Canonical(f.Path)] = f.Data
	}
	if len(s.Routes) > 0 {
		w.routes = make(map[routeKey]string, len(s.Routes))
		for _, r := range s.Routes {
			w.routes[routeKey{NormalizeHost(r.Host), r.Path}] = r.Body
		}
	}
	if len(s.DNS) > 0 {
		w.dns = make(map[string]*dnsAnswers, len(s.DNS))
		for _, d := range s.DNS {
			w.dns[NormalizeHost(d.Host)] = &dnsAnswers{addrs: d.Addrs}
		}
	}
	if len(s.ToolOutputs) > 0 {
		w.toolOut = make(map[string]string, len(s.ToolOutputs))
		for _, t := range s.ToolOutputs {
			w.toolOut[t.Name] = t.Output
		}
	}
	return w
}

// Read implements VFS.
func (w *RefWorld) Read(p string) (string, bool) {
	w.journal = append(w.journal, Entry{Call: CallRead, Name: p})
	return w.Lookup(p)
}

// Write implements VFS.
func (w *RefWorld) Write(p, data string) {
	w.journal = append(w.journal, Entry{Call: CallWrite, Name: p, Arg: data})
	w.store(Canonical(p), data)
}

func (w *RefWorld) store(key, data string) {
	if w.fpValid {
		if old, ok := w.files[key]; ok {
			w.fp ^= fileHash(key, old)
		}
		w.fp ^= fileHash(key, data)
	}
	w.files[key] = data
}

// Resolve implements Net.
func (w *RefWorld) Resolve(host string) netip.Addr {
	h := NormalizeHost(host)
	a := StaticResolve(h)
	if d := w.dns[h]; d != nil && len(d.addrs) > 0 {
		a = d.addrs[d.next]
		d.next = (d.next + 1) % len(d.addrs)
	}
	w.journal = append(w.journal, Entry{Call: CallResolve, Name: host, Addr: a})
	return a
}

// Fetch implements Net.
func (w *RefWorld) Fetch(host string, addr netip.Addr, path string) (string, bool) {
	w.journal = append(w.journal, Entry{Call: CallFetch, Name: host, Arg: path, Addr: addr})
	return w.Route(host, path)
}

// Call implements Tools.
func (w *RefWorld) Call(name, input string) (string, bool) {
	w.journal = append(w.journal, Entry{Call: CallTool, Name: name, Arg: input})
	return w.ToolOutput(name, input)
}

// Now implements Clock.
func (w *RefWorld) Now() int64 {
	t := w.clockNext
	w.clockNext = saturatingAdd(t, w.clock.Step)
	w.clockReads++
	return t
}

// saturatingAdd is a+b, clamped to the int64 range instead of wrapping.
func saturatingAdd(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// Lookup returns the content at Canonical(p) without journaling: for
// observers, never for sandboxes.
func (w *RefWorld) Lookup(p string) (string, bool) {
	d, ok := w.files[Canonical(p)]
	return d, ok
}

// PeekResolve returns what Resolve(host) would answer now, without
// journaling or advancing the DNS table.
func (w *RefWorld) PeekResolve(host string) netip.Addr {
	if d := w.dns[NormalizeHost(host)]; d != nil && len(d.addrs) > 0 {
		return d.addrs[d.next]
	}
	return StaticResolve(host)
}

// Route returns the body routed for host and path, without journaling.
func (w *RefWorld) Route(host, path string) (string, bool) {
	b, ok := w.routes[routeKey{NormalizeHost(host), path}]
	return b, ok
}

// ToolOutput returns what tool name answers for input, without journaling:
// a canned output if the scenario set one, else the built-in tools "echo"
// (the input) and "summarize" ("summary of N bytes").
func (w *RefWorld) ToolOutput(name, input string) (string, bool) {
	if out, ok := w.toolOut[name]; ok {
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
func (w *RefWorld) ResetJournal() { w.journal = w.journal[:0] }

// ClockReads returns how many times the clock has been read.
func (w *RefWorld) ClockReads() int64 { return w.clockReads }

// Fingerprint returns a hash of the whole VFS content: equal fingerprints
// mean, up to hash collisions, equal VFS contents. The first call hashes
// every file; from then on writes keep it current, so later calls cost
// nothing. (Worlds nobody fingerprints, like a model's shadow, never hash.)
func (w *RefWorld) Fingerprint() uint64 {
	if !w.fpValid {
		w.fp = 0
		for k, v := range w.files {
			w.fp ^= fileHash(k, v) // XOR is order-free: map order cannot show
		}
		w.fpValid = true
	}
	return w.fp
}

// Files returns the VFS as a map from canonical path to content: a copy,
// for tests and reports, not for per-op use.
func (w *RefWorld) Files() map[string]string {
	return maps.Clone(w.files)
}

// fileHash mixes key, a separator and data eight bytes at a time. XORed
// into the fingerprint it is order-free, so the fingerprint does not depend
// on the order files were written in.
func fileHash(key, data string) uint64 {
	h := hashString(0x2545f4914f6cdd1d, key)
	return hashString(h^0xff51afd7ed558ccd, data)
}

func hashString(h uint64, s string) uint64 {
	h = mix64(h, uint64(len(s)))
	for ; len(s) >= 8; s = s[8:] {
		h = mix64(h, binary.LittleEndian.Uint64([]byte(s[:8])))
	}
	var tail uint64
	for i := 0; i < len(s); i++ {
		tail |= uint64(s[i]) << (8 * i)
	}
	return mix64(h, tail)
}

func mix64(h, v uint64) uint64 {
	h = (h ^ v) * 0x9e3779b97f4a7c15
	return h ^ h>>31
}
