package scenario

import (
	"math"
	"net/netip"
)

// WorldSpec describes a world's initial state: the header lines file,
// link, route, dns, toolout and clock of a .sbx file (SPEC §10), as data.
// The harness builds the world a sandbox acts through from it. Later entries for the same
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

// File is a VFS entry: Data stored at the canonical form of Path (SPEC §4:
// Go's path.Clean).
type File struct{ Path, Data string }

// Route is a body the network answers for a host and path. Hosts are
// matched with ASCII case and one trailing dot ignored (SPEC §6).
//
// A Redirect route (a "redirect HOST PATH URL" line) has the URL as its
// Body: a fetch returns it as any route's body, and a world that speaks
// HTTP answers it "302 Found" with "Location: URL", so that a sandbox that
// follows redirects makes the next request itself, judged as any other.
type Route struct {
	Host, Path, Body string
	Redirect         bool
}

// DNSRecord makes the resolver answer Addrs for Host in turn, cycling: this
// is how DNS rebinding is modelled. Hosts are matched with ASCII case and
// one trailing dot ignored (SPEC §6).
type DNSRecord struct {
	Host  string
	Addrs []netip.Addr
}

// ToolOutput makes tool Name answer Output whatever its input.
type ToolOutput struct{ Name, Output string }

// Link is a symbolic link at the canonical form of Path whose target is Target, a
// world path, absolute or relative to Path's directory (SPEC §13). A link
// with an empty Target, or at "/", is no link: a real file system makes
// neither.
type Link struct{ Path, Target string }

// TickClock answers Start, Start+Step, Start+2·Step, … on successive reads
// (SPEC §7). Ticks never wrap: one that would pass 2^63−1 is answered as
// math.MaxInt64 with ok=false, which halts max_wall (see core.Clock); for a
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
