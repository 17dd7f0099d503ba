package dims

import (
	"net/netip"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/iprange"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// This file keeps Count as it was first written, plainly and with no
// state kept between calls, as the reference the fast Count is tested
// against (TestCountMatchesSlow). It shares with Count only the catalog,
// the arithmetic of the budget, pair, clock and range points, and Spelling,
// which the speed work left as it was.

// CountSlow is countSlow, for the package's external tests.
var CountSlow = countSlow

// slowRecorder is the reference's world, keeping the bytes the latest
// effect produced.
type slowRecorder struct {
	*refworld.World
	data string
	has  bool
}

func (r *slowRecorder) keep(d string, ok bool) (string, bool) {
	if ok {
		r.data, r.has = d, true
	}
	return d, ok
}

func (r *slowRecorder) Read(p string) (string, bool) { return r.keep(r.World.Read(p)) }
func (r *slowRecorder) Fetch(h string, a netip.Addr, p string) (string, bool) {
	return r.keep(r.World.Fetch(h, a, p))
}
func (r *slowRecorder) Call(n, in string) (string, bool) { return r.keep(r.World.Call(n, in)) }

func countSlow(sc *scenario.Scenario, g core.Grant, t *refworld.Template, c *Counts) {
	if t == nil {
		t = refworld.Prepare(sc.World)
	}
	w := &slowRecorder{World: t.New()}
	ref := core.NewReference(g, w)
	read, write, hosts := slowRootSet(g.FSRead()), slowRootSet(g.FSWrite()), g.NetHosts()
	b := g.Budgets()
	clock := sc.World.Clock
	t0, _ := clock.At(0)
	countClockShape := clockShape(clock)
	halted := false // a hard result came back: every later op stops at the gate
	for i := range sc.Steps {
		if halted {
			return
		}
		op := sc.Steps[i].Op
		before := ref.Usage()
		reads := w.ClockReads()
		j := w.JournalLen()
		w.has = false
		res := ref.Run(op)
		halted = res.Hard
		st := edgeState{ops: before.Ops + 1}
		var top bool
		st.wall, st.wallPast, top = wallAt(clock, reads, t0)
		c.budget(0, b.MaxOps, st.ops, true)
		if st.ops > b.MaxOps {
			c.pairs(b, st, 0, false)
			continue
		}
		if countClockShape >= 0 {
			c.hit(baseClock + countClockShape)
		}
		if top {
			c.hit(baseClock + ClockPastTop)
		}
		c.budget(1, b.MaxWall, st.wall, !st.wallPast)
		if res.Kind == core.MaxWall {
			c.pairs(b, st, 0, false)
			continue
		}
		argsSlow(c, op, read, write, hosts)
		for _, e := range w.Journal()[j:] {
			if e.Call == refworld.CallResolve {
				c.address(spellingSlow(e.Name, sc.World.DNS), e.Addr)
			}
		}
		if !w.has {
			c.pairs(b, st, 0, false)
			continue
		}
		n := int64(len(w.data))
		out := satAdd(before.Output, n)
		c.budget(2, b.MaxOutputBytes, out, true)
		c.pairs(b, st, out, true)
		if n == 0 {
			continue
		}
		cls := byteClassSlow(w.data)
		c.hit(baseBytes + ArgData*numByteClasses + cls)
		if cls == MultiByte {
			switch {
			case out == b.MaxOutputBytes:
				c.hit(baseEdgeData)
			case b.MaxOutputBytes < 1<<63-1 && out == b.MaxOutputBytes+1:
				c.hit(baseEdgeData + 1)
			}
		}
	}
}

func argsSlow(c *Counts, op core.Op, read, write []slowRoot, hosts []string) {
	c.hit(baseBytes + ArgKind*numByteClasses + byteClassSlow(op.Kind))
	var pos []int
	switch op.Kind {
	case core.OpRead:
		pos = []int{ArgFSPath}
	case core.OpWrite:
		pos = []int{ArgFSPath, ArgWriteData}
	case core.OpFetch:
		pos = []int{ArgHost, ArgFetchPath}
	case core.OpTool:
		pos = []int{ArgToolName, ArgToolInput}
	}
	for i, a := range op.Args {
		if i < len(pos) {
			c.hit(baseBytes + pos[i]*numByteClasses + byteClassSlow(a))
		}
	}
	if !spec.WellFormed(op.Args, len(pos)) || len(pos) == 0 {
		return
	}
	switch op.Kind {
	case core.OpRead:
		pathSlow(c, op.Args[0], read)
	case core.OpWrite:
		pathSlow(c, op.Args[0], write)
	case core.OpFetch:
		c.hit(baseHost + classifyHostSlow(op.Args[0], hosts))
	}
}

func pathSlow(c *Counts, p string, roots []slowRoot) {
	shape, slash, named := classifySlow(p, roots)
	if !named {
		c.hit(baseLoose + shape)
		return
	}
	g := 0
	if !slash {
		g = 1
	}
	c.hit(basePath + g*numPathShapes + shape)
}

func byteClassSlow(s string) int {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return NUL
	case !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }):
		return ASCII
	case utf8.ValidString(s):
		return MultiByte
	}
	return InvalidUTF8
}

type slowRoot struct {
	clean string
	slash bool
}

func slowRootSet(roots []string) []slowRoot {
	out := make([]slowRoot, len(roots))
	for i, r := range roots {
		out[i] = slowRoot{spec.Canonical(r), strings.HasSuffix(r, "/")}
	}
	return out
}

func classifySlow(p string, rs []slowRoot) (shape int, slash, named bool) {
	switch {
	case p == "":
		return PathEmpty, false, false
	case p[0] != '/':
		return PathRelative, false, false
	}
	if at, sep := traversalAtSlow(p); at >= 0 {
		pre := strings.TrimRight(p[:at], `/\`)
		if pre == "" {
			pre = "/"
		}
		if r, ok := holdingSlow(rs, spec.Canonical(pre)); ok {
			if sep == '\\' {
				return PathBackslash, r.slash, true
			}
			return PathTraversal, r.slash, true
		}
		return PathOutside, false, false
	}
	c := spec.Canonical(p)
	if r, ok := holdingSlow(rs, c); ok {
		return underShapeSlow(p, c, r.clean), r.slash, true
	}
	best := -1
	for i, r := range rs {
		if r.clean != "/" && len(c) > len(r.clean) && strings.HasPrefix(c, r.clean) && (best < 0 || len(r.clean) > len(rs[best].clean)) {
			best = i
		}
	}
	if best >= 0 {
		return PathSibling, rs[best].slash, true
	}
	for _, r := range rs {
		if r.clean != "/" && (c == "/" || len(r.clean) > len(c) && r.clean[len(c)] == '/' && strings.HasPrefix(r.clean, c)) {
			return PathAncestor, r.slash, true
		}
	}
	return PathOutside, false, false
}

func holdingSlow(rs []slowRoot, c string) (slowRoot, bool) {
	best, found := slowRoot{}, false
	for _, r := range rs {
		under := c == r.clean || r.clean == "/" || len(c) > len(r.clean) && c[len(r.clean)] == '/' && strings.HasPrefix(c, r.clean)
		if under && (!found || len(r.clean) > len(best.clean)) {
			best, found = r, true
		}
	}
	return best, found
}

func underShapeSlow(p, c, rc string) int {
	switch {
	case c == rc && p == rc:
		return PathRootItself
	case c == rc && p == rc+"/":
		return PathRootSlash
	case dotDotNameSlow(p):
		return PathDotDotName
	case p != c && p != c+"/":
		return PathDotSegments
	case strings.IndexByte(p, '%') >= 0:
		return PathPercent
	case byteClassSlow(p) != ASCII:
		return PathLookalike
	case strings.HasSuffix(p, "/"):
		return PathTrailing
	case strings.Count(strings.TrimPrefix(c, rc), "/") >= 3:
		return PathDeep
	}
	return PathChild
}

func traversalAtSlow(p string) (int, byte) {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' && p[i] != '\\' {
			continue
		}
		if p[start:i] == ".." {
			sep := byte('/')
			if start > 0 && p[start-1] == '\\' || i < len(p) && p[i] == '\\' {
				sep = '\\'
			}
			return start, sep
		}
		start = i + 1
	}
	return -1, 0
}

func dotDotNameSlow(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if len(seg) > 2 && strings.HasPrefix(seg, "..") {
			return true
		}
	}
	return false
}

func classifyHostSlow(h string, granted []string) int {
	for _, g := range granted {
		if h == g {
			return HostGranted
		}
	}
	switch {
	case h == "":
		return HostEmpty
	case strings.IndexFunc(h, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		return HostSpace
	case strings.IndexByte(h, '@') >= 0:
		for _, g := range granted {
			if strings.HasPrefix(h, g+"@") {
				return HostGrantedAt
			}
		}
		return HostUserinfo
	}
	for _, g := range granted {
		switch {
		case strings.EqualFold(h, g):
			return HostCase
		case h == g+"." || h+"." == g:
			return HostTrailingDot
		case h == g+"..":
			return HostTwoDots
		}
	}
	if _, ok := spec.ParseIPv6Literal(h); ok {
		return HostIPv6
	}
	if _, ok := spec.ParseInetAton(h); ok {
		return HostIPv4
	}
	if strings.IndexByte(h, ':') >= 0 {
		return HostPort
	}
	for _, g := range granted {
		switch {
		case strings.HasSuffix(h, "."+g):
			return HostSubdomain
		case strings.HasPrefix(h, g):
			return HostPrefix
		}
	}
	for _, g := range granted {
		if encodesSlow(h, g) {
			return HostEncoded
		}
	}
	switch n := spec.NormalizeHost(h); {
	case n == "localhost" || strings.HasSuffix(n, ".localhost"):
		return HostLocalhost
	case n == "metadata.google.internal" || n == "metadata" || n == "instance-data":
		return HostMetadata
	}
	return HostOther
}

// encodesSlow: h decodes to g, or differs from g only where g has an
// A-label and h a label with a character past ASCII.
func encodesSlow(h, g string) bool {
	if d, err := url.PathUnescape(h); err == nil && strings.Contains(h, "%") && d == g {
		return true
	}
	hs, gs := strings.Split(h, "."), strings.Split(g, ".")
	if len(hs) != len(gs) || !utf8.ValidString(h) || strings.IndexFunc(h, func(r rune) bool { return r > unicode.MaxASCII }) < 0 {
		return false
	}
	for i, l := range hs {
		nonASCII := strings.IndexFunc(l, func(r rune) bool { return r > unicode.MaxASCII }) >= 0
		if l != gs[i] && !(nonASCII && strings.HasPrefix(gs[i], "xn--")) {
			return false
		}
	}
	return true
}

func spellingSlow(host string, dns []scenario.DNSRecord) int {
	h := spec.NormalizeHost(host)
	for _, r := range dns {
		if spec.NormalizeHost(r.Host) == h {
			return iprange.Name
		}
	}
	return Spelling(h) // unchanged since it was first written: shared
}
