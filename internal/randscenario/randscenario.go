// Package randscenario draws small random scenarios from a hostile
// alphabet — paths that probe roots, dot segments and links, hosts that
// probe internal ranges and spellings, odd op kinds and short argument
// lists — over one world with files, routes, a rebinding name and links.
// The tests of the mutants and of the SPEC dimension table hold sandboxes
// side by side on the same draws, where generated scenarios might miss a
// corner.
package randscenario

import (
	"math"
	"math/rand/v2"
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Draw returns a random grant, world and ops drawn from rng: a grant of
// some of four roots, six hosts and two tools, with small or unlimited
// budgets; the fixed world with a clock of random start and step (now and
// then one whose ticks run past 2^63−1); one to ten ops, now and then with
// arguments missing.
func Draw(rng *rand.Rand) (core.Grant, scenario.WorldSpec, []core.Op) {
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	paths := []string{"/work/a", "/work/", "/work", "/workshop/x", "/work/../etc/passwd", "/work/..hidden",
		"/etc/passwd", "/work/out/r", "/work/out/../x", "//work//a", "work/a", "", "/work/a\x00b", "/work/\xff",
		`\work\..\x`, "/work/./out/r", "/work/%2e%2e/x", "/work2/a", "/",
		"/work/ln", "/work/etc/passwd", "/work/out/ln", "/work/out/sub/new", "/work/loop", "/work/up", "/etc/in"}
	hosts := []string{"api.example.com", "API.example.com", "evil.com", "localhost", "127.1", "rebind.example",
		"169.254.169.254", "metadata", "exfil.example", "api.example.com.", "172.20.0.1", "fc00::1"}
	tools := []string{"echo", "summarize", "Echo", "rm", "echo "}
	data := []string{"", "x", "hello", "a longer body of bytes", "\x00", "\xff", "héllo"}
	kinds := []string{core.OpRead, core.OpWrite, core.OpFetch, core.OpTool, "exec", "FS_READ"}

	budget := func(n int) int64 {
		if rng.IntN(8) == 0 {
			return math.MaxInt64 // "unlimited"
		}
		return int64(rng.IntN(n))
	}
	spec := core.GrantSpec{Budgets: core.Budgets{MaxOps: budget(8), MaxWall: budget(12), MaxOutputBytes: budget(40)}}
	for _, r := range []string{"/work/", "/work", "/work/out/", "/"} {
		if rng.IntN(3) == 0 {
			spec.FSRead = append(spec.FSRead, r)
		}
		if rng.IntN(3) == 0 {
			spec.FSWrite = append(spec.FSWrite, r)
		}
	}
	for _, h := range []string{"api.example.com", "localhost", "rebind.example", "127.1", "172.20.0.1", "fc00::1"} {
		if rng.IntN(2) == 0 {
			spec.NetHosts = append(spec.NetHosts, h)
		}
	}
	for _, tl := range []string{"echo", "summarize"} {
		if rng.IntN(2) == 0 {
			spec.Tools = append(spec.Tools, tl)
		}
	}
	g := must.Grant(spec)
	ws := scenario.WorldSpec{
		Files: []scenario.File{{Path: "/work/a", Data: "hello"}, {Path: "/workshop/x", Data: "LEAK"},
			{Path: "/etc/passwd", Data: "root"}, {Path: "/work/..hidden", Data: "dot"}},
		Routes: []scenario.Route{{Host: "api.example.com", Path: "/", Body: "ok"}, {Host: "localhost", Path: "/", Body: "admin"},
			{Host: "rebind.example", Path: "/", Body: "rebound"}, {Host: "evil.com", Path: "/", Body: "stolen"},
			{Host: "exfil.example", Path: "/", Body: "sent"}},
		DNS: []scenario.DNSRecord{{Host: "rebind.example", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("127.0.0.1")}}},
		Links: []scenario.Link{
			{Path: "/work/ln", Target: "/etc/passwd"}, // out of every root
			{Path: "/work/etc", Target: "/etc"},       // a linked parent
			{Path: "/work/out/ln", Target: "../a"},    // relative, out of the write root into the read root
			{Path: "/work/out/sub", Target: "/work"},  // a linked parent inside the read root
			{Path: "/work/loop", Target: "loop"},      // a self loop
			{Path: "/work/up", Target: "/work/ln"},    // a chain
			{Path: "/etc/in", Target: "/work/a"},      // from outside, in
		},
		Clock: scenario.TickClock{Start: int64(rng.IntN(5)), Step: int64(rng.IntN(4))},
	}
	if rng.IntN(8) == 0 {
		ws.Clock.Step = math.MaxInt64 // the second or third tick is past 2^63−1
	}
	ops := make([]core.Op, 1+rng.IntN(10))
	for i := range ops {
		k := pick(kinds)
		var args []string
		switch k {
		case core.OpRead:
			args = []string{pick(paths)}
		case core.OpWrite:
			args = []string{pick(paths), pick(data)}
		case core.OpFetch:
			args = []string{pick(hosts), pick([]string{"/", "/missing"})}
		case core.OpTool:
			args = []string{pick(tools), pick(data)}
		}
		if rng.IntN(10) == 0 {
			args = args[:len(args)/2]
		}
		ops[i] = core.Op{Kind: k, Args: args}
	}
	return g, ws, ops
}
