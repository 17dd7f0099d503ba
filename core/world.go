package core

import "net/netip"

// World is everything a sandbox may touch (SPEC §1). A sandbox never acts
// directly: it is built over a World and every call it makes is appended to
// the world's journal, which is what the oracle trusts. World is the public
// contract for sandboxes under test; it is split by concern as the SPEC is.
type World interface {
	VFS
	Net
	Tools
	Clock
}

// VFS is a flat file store keyed by canonical path; there are no directories.
type VFS interface {
	// Read returns the content stored at p, and false when there is
	// none. It follows the world's links as a real file system does (SPEC
	// §13): the content at Realpath(p), which is Canonical(p) in a world
	// without links. Journaled as "read p".
	Read(p string) (string, bool)
	// Write stores data at p, links followed as Read follows them: a
	// write through a dangling link creates its target, one through a
	// loop stores nothing. Journaled as "write p data".
	Write(p, data string)
	// Realpath returns p resolved through the world's symbolic links
	// (SPEC §1, §13): every link in every component, the last one
	// included, whether or not the target exists. The answer is a clean
	// path. ok=false means the links loop (more than 40 of them), which
	// the sandbox answers not_found. In a world without links it returns
	// Canonical(p), true. Journaled as "realpath p -> r".
	//
	// The fs pipeline (SPEC §5) calls it once per fs_read or fs_write op,
	// after the lexical allow-list check passes and before the effect,
	// checks r against the same roots, and reads or writes r, never p.
	Realpath(p string) (r string, ok bool)
}

// Net resolves names and fetches from addresses.
type Net interface {
	// Resolve answers one address for host (SPEC §6). Journaled as
	// "resolve host -> addr".
	Resolve(host string) netip.Addr
	// Fetch returns the body routed for host and path, and false when
	// none is. addr is the address the fetch goes to. Journaled as
	// "fetch host addr path".
	Fetch(host string, addr netip.Addr, path string) (string, bool)
}

// Tools calls named tools.
type Tools interface {
	// Call returns the tool's output for input, and false when there is no
	// such tool. Journaled as "call name input".
	Call(name, input string) (string, bool)
}

// Clock is the injected clock. Reads are counted, not journaled.
type Clock interface {
	// Now returns the next tick, and ok=false when that tick would pass
	// 2^63−1 (SPEC §7): ticks never wrap, so such a tick is answered as
	// math.MaxInt64 with ok=false, it is past every wall budget, and the op
	// that reads it halts max_wall. A .sbx clock never runs backwards (its
	// step is not negative); a world built in Go may have one
	// (scenario.TickClock with a negative Step), and a tick below −2^63 is
	// then answered as math.MinInt64 with ok=true: the SPEC halts only at
	// the top, and a clock run backwards charges a wall no budget refuses.
	//
	// The flag is needed because a tick can legitimately be exactly
	// 2^63−1 (a clock started there, or one whose step lands on it): read
	// as a plain int64, such a tick and one that saturated there look the
	// same, yet only the second one halts with a max_wall of 2^63−1, or
	// with a t0 above 0.
	Now() (tick int64, ok bool)
}
