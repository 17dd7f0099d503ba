package generators

import (
	"math"
	"net/netip"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// A profile is the budget shape of a scenario. Tight profiles halt early, so
// that ops of every class keep coming after a hard halt; each has a theme
// class drawn more often under it.
type profile uint8

const (
	roomy       profile = iota // budgets far from anything the ops reach
	opsTight                   // max_ops below the scenario's length
	wallTight                  // a clock with large steps, max_wall near them
	outputTight                // a small max_output_bytes
	boundary                   // a budget of 0, or one the ops land exactly on
	numProfiles
)

var (
	profileWeights = weights(40, 15, 15, 15, 15)
	profileTheme   = [numProfiles]attack.Class{
		opsTight: attack.OpFlood, wallTight: attack.WallJump,
		outputTight: attack.OutputFlood, boundary: attack.BudgetBoundary,
	}
)

// The weights the world gen draws its shape from, each where it is drawn.
var (
	lengthWeights       = weights(2, 17, 1)              // drawLength: short, usual, long
	spellingWeights     = weights(45, 45, 4, 3, 3)       // rootSpelling: rootInfo.spellings
	readRootWeights     = weights(62, 12, 8, 6, 4, 5, 4) // readRoots: one, two, nested, "/", none, a prefix pair, a linked root
	writeRootWeights    = weights(55, 15, 10, 10, 7, 3)  // writeRoots: nested, none, the read root, separate, two, "/"
	plainHostWeights    = weights(50, 30, 10, 10)        // hosts: 1, 2, 3 or no plain names
	ipHostWeights       = weights(55, 25, 12, 8)         // hosts: 0 to 3 IP spellings
	literalProbeWeights = weights(1, 2, 3, 4, 2)         // rangeProbes: 0 to 4 literals, before the slots' share
	metadataHostWeights = weights(70, 20, 10)            // hosts: 0 to 2 metadata endpoints
	rebinderWeights     = weights(50, 35, 15)            // hosts: 0 to 2 granted rebinding names
	toolWeights         = weights(40, 30, 15, 10, 5)     // tools: 1, 2, 3, 4 or no tools
	linkWeights         = weights(1, 3)                  // links: no links, or links
)

// plan is what a scenario is drawn around.
type plan struct {
	prof  profile
	edge  edge // under the boundary profile: which budget to put on the edge
	n     int  // op slots: each holds one op, a run of ops, or (rarely) none
	limit int  // the most ops the scenario may have
}

// edge is the budget a boundary-profile scenario puts on the edge.
type edge uint8

const (
	opsZero     edge = iota // max_ops 0: every op halts
	opsExact                // max_ops = the op slots: the last op lands on it
	opsShort                // max_ops = the op slots - 1
	outputLands             // max_output_bytes where the output so far lands exactly
	wallStill               // max_wall 0, a stopped clock: never trips
	wallZero                // max_wall 0, a running clock: trips at op 1
	wallLands               // max_wall = 3 × half the slots, step 3: lands exactly
	numEdges
)

func drawPlan(src Source) plan {
	p := plan{prof: profile(profileWeights.draw(src))}
	if p.prof == boundary {
		p.edge = edge(src.Intn(int(numEdges)))
	}
	p.n = drawLength(src)
	return p
}

// drawLength gives usually 5–40 op slots, sometimes 1–4, occasionally up to
// 200. Index 0 is the short branch, so shrinking ends there.
func drawLength(src Source) int {
	switch lengthWeights.draw(src) {
	case 0:
		return 1 + src.Intn(4)
	case 1:
		return 5 + src.Intn(36)
	}
	return 41 + src.Intn(160)
}

// builder accumulates a grant and a world together, since the world is
// shaped around what is granted: files inside and beside each root, routes
// for granted and ungranted hosts, DNS lines for rebinding names.
type builder struct {
	src Source
	d   *draw // src, whose slabs the lists are carved from
	g   core.GrantSpec
	w   scenario.WorldSpec
	// readHost and writeHost are the roots links are planted in: a read
	// root (either of a pair, first in the grant or second) and the first
	// write root, or /work and its /out when no such root is granted or it
	// is "/"; in a world whose root is a link, the directory the link
	// leads to. readOther is the other root of a pair, which gets an
	// escape recipe of its own when two are planted, or nil.
	readHost, writeHost, readOther *rootInfo
	// rootLink is the link at or above the granted root (linkedRoot), or
	// nil.
	rootLink *scenario.Link
}

// drawGrantWorld draws the grant and the world for plan p. Its lists are
// carved from d's slabs: a window each for those that grow one entry at a
// time, closed when the world is done.
func drawGrantWorld(d *draw, p plan) (core.GrantSpec, scenario.WorldSpec) {
	b := &builder{src: d, d: d}
	d.record.rewind()
	b.w.Files, b.w.Routes = d.files.open(48), d.routes.open(32) // at most 43 and 17 so far
	b.w.DNS, b.w.ToolOutputs = d.dns.open(8), d.outputs.open(8)
	b.writeRoots(b.readRoots())
	b.outsideFiles()
	b.links()
	b.g.NetHosts = d.strs.open(32) // at most 22 so far; closed before tools carves
	b.hosts(p.n)
	b.g.NetHosts = d.strs.close(b.g.NetHosts)
	b.tools()
	b.g.Budgets, b.w.Clock = drawBudgets(d, p)
	b.w.Files, b.w.Routes = d.files.close(b.w.Files), d.routes.close(b.w.Routes)
	b.w.DNS, b.w.ToolOutputs = d.dns.close(b.w.DNS), d.outputs.close(b.w.ToolOutputs)
	if len(b.w.DNS) == 0 {
		b.w.DNS = nil // no dns line
	}
	return b.g, b.w
}

// grant grants host h, whose worldless flags are fl, and records them.
func (b *builder) grant(h string, fl hostFlag) {
	b.g.NetHosts = append(b.g.NetHosts, h)
	b.d.record.flags = append(b.d.record.flags, fl)
}

// list returns xs in a list of the grant's, carved from the draw's slab.
func (b *builder) list(xs ...string) []string {
	l := b.d.strs.carve(len(xs))
	copy(l, xs)
	return l
}

// dnsLine adds a DNS line answering addrs, copied: scenarios share nothing
// mutable, with each other or with the tables.
func (b *builder) dnsLine(h string, addrs []netip.Addr) {
	a := b.d.addrs.carve(len(addrs))
	copy(a, addrs)
	b.w.DNS = append(b.w.DNS, scenario.DNSRecord{Host: h, Addrs: a})
}

func (b *builder) file(p, data string) {
	b.w.Files = append(b.w.Files, scenario.File{Path: p, Data: data})
}

func (b *builder) route(h, p, body string) {
	b.w.Routes = append(b.w.Routes, scenario.Route{Host: h, Path: p, Body: body})
}

// rootInfo is a root base with every string the world gen and the ops
// build from it, concatenated once at init.
type rootInfo struct {
	base       string
	spellings  [5]string   // base, base/, base/., //base, base//
	files      []string    // base/ + each of fileNames
	siblings   []string    // base + each of siblingSuffixes
	homoglyph  string      // a Cyrillic letter in base, then /data.txt
	upper      string      // base upper-cased, then /data.txt
	regexpLike string      // base with its "." another letter, then /secret; "" for a base with none
	cased      []string    // base upper-cased or title-cased, then /secret or /d/f: a file, and a directory
	backslash  []string    // base, a backslash and secret or d/f: a file, and a directory, beside the root
	rTxt       string      // base/r.txt
	subKept    string      // base/sub/keep (keepSub)
	links      rootLinks   // the links of every recipe planted in this root
	entries    []linkEntry // the entry of every recipe planted in this root (rootEntries)
}

func newRootInfo(base string) rootInfo {
	ri := rootInfo{base: base, homoglyph: homoglyph(base) + "/data.txt", upper: upperASCII(base) + "/data.txt", rTxt: base + "/r.txt", subKept: base + "/sub/keep"}
	ri.spellings = [5]string{base, base + "/", base + "/.", "/" + base, base + "//"}
	for _, n := range fileNames {
		ri.files = append(ri.files, base+"/"+n)
	}
	for _, s := range siblingSuffixes {
		ri.siblings = append(ri.siblings, base+s)
	}
	if sw := dotSwapped(base); sw != "" {
		ri.regexpLike = sw + "/secret"
	}
	for _, c := range []string{upperASCII(base), titleASCII(base)} {
		ri.cased = append(ri.cased, c+"/secret", c+"/d/f")
	}
	ri.backslash = []string{base + `\secret`, base + `\d/f`}
	ri.links = newRootLinks(&ri)
	ri.entries = rootEntries(ri.links)
	return ri
}

// readInfos, subInfos and outInfos are readBases, their /sub and their /out;
// tmpOut and dataCache are write roots of their own.
var (
	readInfos = rootInfos("")
	subInfos  = rootInfos("/sub")
	outInfos  = rootInfos("/out")
	tmpOut    = newRootInfo("/tmp/sbx/out")
	dataCache = newRootInfo(dataCacheBase)
)

// dataCacheBase is the second write root some grants add.
const dataCacheBase = "/data/cache"

func rootInfos(suffix string) []rootInfo {
	out := make([]rootInfo, len(readBases))
	for i, b := range readBases {
		out[i] = newRootInfo(b + suffix)
	}
	return out
}

// rootSpelling spells a root: usually with or without a trailing slash,
// rarely in a form only Clean makes canonical.
func (b *builder) rootSpelling(ri *rootInfo) string {
	return ri.spellings[spellingWeights.draw(b.src)]
}

// readRoots grants one root (mostly), two, a nested pair, "/" or none, and
// stores files inside and beside each. It returns the index in readBases
// of the base the roots are drawn from (0, /work, without one).
func (b *builder) readRoots() int {
	src := b.src
	i := src.Intn(len(readBases))
	if b.d.rootBase > 0 { // drawn all the same, so that the rest of the scenario is too
		i = b.d.rootBase - 1
	}
	infos := [2]*rootInfo{&readInfos[i]}
	n := 1
	switch readRootWeights.draw(src) {
	case 1:
		infos[1], n = &readInfos[(i+1)%len(readBases)], 2
	case 2:
		infos[1], n = &subInfos[i], 2
	case 3:
		b.g.FSRead = b.list("/")
		b.readHost = &readInfos[0]
		b.rootFiles(b.readHost)
		return 0
	case 4:
		b.readHost = &readInfos[0]
		b.rootFiles(b.readHost) // nothing granted, but content to leak
		return 0
	case 5:
		infos[1], n = &prefixInfos[i], 2
	case 6:
		b.linkedRoot(i)
		return i
	}
	// Either root of a pair hosts the links, and either comes first in
	// the grant: a sandbox may treat its first directory apart from the
	// others (a base path, whose links it resolves, and more allowed
	// paths checked lexically), so the links must be met in both.
	if n == 2 && oneIn(src, 2) {
		infos[0], infos[1] = infos[1], infos[0]
	}
	b.readHost = infos[0]
	if n == 2 {
		b.readOther = infos[1]
		if oneIn(src, 2) {
			infos[0], infos[1] = infos[1], infos[0]
		}
	}
	b.g.FSRead = b.d.strs.carve(n)
	for j, ri := range infos[:n] {
		b.g.FSRead[j] = b.rootSpelling(ri)
		b.rootFiles(ri)
	}
	return i
}

// rootFiles stores content below a root, at the root key itself, at prefix
// siblings and at lookalike spellings of it.
func (b *builder) rootFiles(ri *rootInfo) {
	src := b.src
	b.file(ri.files[0], fileData[0])
	for j := 1; j < len(fileNames); j++ {
		if src.Intn(3) != 2 {
			continue
		}
		data := fileData[j]
		if fileNames[j] == "big" {
			data = fill[:pick(src, bigFileSizes)]
		}
		b.file(ri.files[j], data)
	}
	if oneIn(src, 4) {
		b.file(ri.base, "content stored at the root key itself")
	}
	for n := src.Intn(3); n > 0; n-- {
		b.file(pick(src, ri.siblings), "LEAK-prefix-sibling")
	}
	if oneIn(src, 3) {
		b.file(ri.homoglyph, "LEAK-homoglyph-root")
	}
	if ri.regexpLike != "" && oneIn(src, 3) {
		b.file(ri.regexpLike, "LEAK-regexp-root")
	}
	if oneIn(src, 4) {
		b.file(ri.upper, "LEAK-case-variant-root")
	}
	b.lookalikeSiblings(ri)
}

// lookalikeSiblings stores, one time in two, files and directories whose
// paths differ from the root's only in letter case (/WORK/secret,
// /WORK/d/f, /Work/secret and /Work/d/f), and, one time in three, a file
// or a directory beside the root whose name is the root's and a
// backslash (/work\secret, /work\d/f): content a sandbox that folds case
// or reads "\" as a separator reaches where it must not.
func (b *builder) lookalikeSiblings(ri *rootInfo) {
	if oneIn(b.src, 2) {
		for _, p := range ri.cased {
			b.file(p, "LEAK-case-variant")
		}
	}
	if oneIn(b.src, 3) {
		b.file(pick(b.src, ri.backslash), "LEAK-backslash-sibling")
	}
}

// writeRoots grants a root nested in the read root i (mostly), none, the
// read root itself, a separate one, two, or "/".
func (b *builder) writeRoots(i int) {
	src := b.src
	if b.rootLink != nil { // the read roots, as a server with one list of directories has them
		b.g.FSWrite = b.list(b.g.FSRead...)
		b.writeHost = b.readHost
		return
	}
	var first *rootInfo
	b.writeHost = &outInfos[i] // unless a root of its own is granted
	switch writeRootWeights.draw(src) {
	case 0:
		first = &outInfos[i]
		b.g.FSWrite = b.list(b.rootSpelling(first))
	case 1:
		return
	case 2:
		first = &readInfos[i]
		b.g.FSWrite = b.list(b.rootSpelling(first))
	case 3:
		first = &tmpOut
		b.g.FSWrite = b.list(b.rootSpelling(first))
	case 4:
		first = &outInfos[i]
		b.g.FSWrite = b.list(b.rootSpelling(first), b.rootSpelling(&dataCache))
	default:
		b.g.FSWrite = b.list("/")
		return
	}
	b.writeHost = first
	if oneIn(src, 2) {
		b.file(first.rTxt, "R")
	}
	b.lookalikeSiblings(first)
}

// outsideFiles stores sensitive files outside the roots: /etc/passwd always.
func (b *builder) outsideFiles() {
	b.file(outsideFiles[0].path, outsideFiles[0].data)
	for _, f := range outsideFiles[1:] {
		if oneIn(b.src, 3) {
			b.file(f.path, f.data)
		}
	}
}

// hosts grants plain names, IP spellings, probes of the internal-range
// table (more for more op slots), metadata endpoints, rebinding names and
// a service's single-label name, and routes bodies for them and for
// attacker hosts.
func (b *builder) hosts(slots int) {
	src := b.src
	n := []int{1, 2, 3, 0}[plainHostWeights.draw(src)]
	for i, j := 0, src.Intn(len(plainHosts)); i < n; i++ {
		b.plainHost((i + j) % len(plainHosts))
	}
	for n := ipHostWeights.draw(src); n > 0; n-- {
		k := src.Intn(len(ipHosts)) // pick's draw, and the index of the flags
		b.grant(ipHosts[k], ipFlags[k])
		b.route(ipHosts[k], "/", "LEAK-by-ip-spelling")
	}
	b.rangeProbes(slots)
	for n := metadataHostWeights.draw(src); n > 0; n-- {
		b.metadataHost(src.Intn(len(metadataHosts)))
	}
	for i, j, n := 0, src.Intn(len(rebinders)), rebinderWeights.draw(src); i < n; i++ {
		b.rebinder((i+j)%len(rebinders), true)
	}
	if oneIn(src, 4) {
		b.rebinder(src.Intn(len(rebinders)), false) // a DNS line no grant names
	}
	// One draw for both names, each in a fifth of the worlds.
	switch r := src.Intn(10); {
	case r >= 8:
		b.grant(dnsMetadata, dnsMetadataFlags)
		b.dnsLine(dnsMetadata, []netip.Addr{spec.StaticResolve("metadata")})
		b.route(dnsMetadata, metadataPaths[0], metadataBodies[0])
	case r < 2:
		b.grant(serviceName, serviceNameFlags)
		b.dnsLine(serviceName, []netip.Addr{serviceAddr})
		b.route(serviceName, "/admin", "LEAK-service")
	}
	for n := 1 + src.Intn(2); n > 0; n-- {
		r := pick(src, attackerRoutes)
		b.route(r.host, r.path, "LEAK-exfil-accepted")
	}
}

// plainHost grants plainHosts[k] and routes paths for it.
func (b *builder) plainHost(k int) {
	src := b.src
	h := plainHosts[k]
	b.grant(h, plainFlags[k])
	b.route(h, "/status", "ok")
	if oneIn(src, 2) {
		b.route(h, "/v1/items", `{"items":[1,2,3]}`)
	}
	if oneIn(src, 3) {
		b.route(h, "/big", fill[:pick(src, bigOutputSizes)])
	}
	if oneIn(src, 4) {
		b.route(h, "/empty", "")
	}
	if oneIn(src, 3) {
		b.route(h, pagePath, pick(src, pageBodies))
	}
	if oneIn(src, 2) {
		b.w.Routes = append(b.w.Routes, scenario.Route{Host: h, Path: redirectPath, Body: pick(src, redirectTargets), Redirect: true})
		if oneIn(src, 2) {
			// A public address outside the documentation ranges: a guard
			// that calls 203.0.113.1, §6's answer for a name, private
			// (the private-ip package does) would refuse the first request
			// and never meet the redirect.
			b.dnsLine(h, publicAddrs[src.Intn(len(publicAddrs)):][:1])
		}
	}
}

// metadataHost grants metadataHosts[k] and routes one of the metadata
// paths for it.
func (b *builder) metadataHost(k int) {
	h := metadataHosts[k]
	b.grant(h, metadataFlags[k])
	j := b.src.Intn(len(metadataPaths))
	b.route(h, metadataPaths[j], metadataBodies[j])
}

// rebinder adds rebinders[i]'s DNS line and routes, and grants the name
// when granted; now and then a granted one also redirects to a path of its
// own, the Location a guard checks by name alone while its HTTP client
// looks the name up again for the next hop (the line has moved inside).
func (b *builder) rebinder(i int, granted bool) {
	r := rebinders[i]
	if granted {
		b.grant(r.host, rebinderFlags[i])
	}
	b.dnsLine(r.host, r.addrs)
	b.route(r.host, "/data", "public-data")
	if granted && oneIn(b.src, 3) {
		b.w.Routes = append(b.w.Routes, scenario.Route{Host: r.host, Path: redirectPath, Body: "/data", Redirect: true})
	}
}

// tools grants one to four tools (rarely none) and gives the world canned
// outputs: dump (up to a megabyte), search, and LEAK outputs for ungranted
// names and variants.
func (b *builder) tools() {
	src := b.src
	n := []int{1, 2, 3, 4, 0}[toolWeights.draw(src)]
	b.g.Tools = b.d.strs.carve(n)
	for i, j := 0, src.Intn(len(grantTools)); i < n; i++ {
		b.g.Tools[i] = grantTools[(i+j)%len(grantTools)]
	}
	if slices.Contains(b.g.Tools, "dump") || oneIn(src, 4) { // ungranted, it is a leak to see
		b.w.ToolOutputs = append(b.w.ToolOutputs, scenario.ToolOutput{Name: "dump", Output: fill[:pick(src, bigOutputSizes)]})
	}
	if slices.Contains(b.g.Tools, "search") {
		b.w.ToolOutputs = append(b.w.ToolOutputs, scenario.ToolOutput{Name: "search", Output: "results: 3 matches"})
	}
	for n := src.Intn(3); n > 0; n-- {
		t := pick(src, leakTools)
		b.w.ToolOutputs = append(b.w.ToolOutputs, scenario.ToolOutput{Name: t.name, Output: t.out})
	}
}

var (
	roomyStarts = []int64{0, 7, 1000, 1_000_000_000}
	roomySteps  = []int64{1, 0, 1, 2}
	wallStarts  = []int64{0, 1000, 1_000_000_000, 1 << 40, 1 << 62}
	// A few ticks past 1<<56 no float64 holds: a sandbox that keeps its
	// budgets as JavaScript numbers decides max_wall wrong there.
	wallSteps   = []int64{1000, 250_000, 1 << 30, 1 << 40, 1 << 56, 1 << 62, math.MaxInt64}
	tightOutput = []int64{0, 1, 2, 5, 7, 10, 15, 20, 30, 64, 100, 1000, 4096} // "ok" is 2 bytes, "hello" 5, ten 10
)

// drawBudgets gives roomy budgets and a steady clock, then tightens what the
// profile says.
func drawBudgets(src Source, p plan) (core.Budgets, scenario.TickClock) {
	b := core.Budgets{MaxOps: 1000, MaxWall: 1_000_000, MaxOutputBytes: 1 << 20}
	c := scenario.TickClock{Start: pick(src, roomyStarts), Step: pick(src, roomySteps)}
	switch p.prof {
	case roomy:
		switch src.Intn(8) {
		case 1, 2:
			b.MaxOutputBytes = 1 << 24
		case 3: // a budget at math.MaxInt64: no "budget + 1" may wrap
			b.MaxOps = math.MaxInt64
		case 4:
			b.MaxWall = math.MaxInt64
		case 5:
			b.MaxOutputBytes = math.MaxInt64
		}
	case opsTight:
		b.MaxOps = int64(src.Intn(min(p.n, 40) + 1))
	case wallTight:
		wallClock(src, &b, &c)
	case outputTight:
		b.MaxOutputBytes = pick(src, tightOutput)
	case boundary:
		onBoundary(src, &b, &c, p)
	}
	return b, c
}

// wallClock draws the wall-tight profile's clock and budgets: large steps
// and max_wall within a tick of k steps, a quarter of the time with
// max_ops k, so that op k puts both budgets on their edge at once, and a
// quarter of the time with max_ops 0 and max_wall one step or one less,
// so that op 1 is past max_ops and at or past max_wall (a sandbox that
// tests the clock first halts the wrong way, on one op); or a
// clock whose ticks pass 2^63−1 at op 1 to 5 against a max_wall of
// math.MaxInt64, which only the overflow rule of SPEC §7 trips. (No clock
// runs backwards: the scenario format writes a step non-negative.)
func wallClock(src Source, b *core.Budgets, c *scenario.TickClock) {
	switch src.Intn(8) {
	case 0:
		c.Step = pick(src, topSteps)
		c.Start = math.MaxInt64 - []int64{0, 0, 1, 2, 4}[src.Intn(5)]*c.Step // op j reads 2^63−1 itself, op j+1 is past it
		b.MaxWall = math.MaxInt64 - int64(src.Intn(2))
	default:
		c.Start, c.Step = pick(src, wallStarts), pick(src, wallSteps)
		var k int64
		b.MaxWall, k = nearTicks(src, c.Step)
		switch src.Intn(4) {
		case 0: // op k is on max_ops, and at, one over or near max_wall
			b.MaxOps = max(k, 1)
		case 1: // op 1 is one over max_ops, and at or one over max_wall
			b.MaxOps, b.MaxWall = 0, c.Step-int64(src.Intn(2))
		}
	}
}

var (
	topSteps = []int64{1000, 250_000, 1 << 30, 1 << 40, 1 << 60} // four of each stay in int64
)

// nearTicks returns a wall budget within one tick of k steps, k < 9,
// saturating instead of overflowing, and k.
func nearTicks(src Source, step int64) (int64, int64) {
	k := int64(src.Intn(9))
	w := int64(math.MaxInt64)
	if k == 0 || step <= math.MaxInt64/k {
		w = k * step
	}
	switch src.Intn(4) {
	case 1:
		w = max(w-1, 0)
	case 2:
		w = min(w, math.MaxInt64-1) + 1
	}
	return w, k
}

// onBoundary puts the budget p.edge names on the edge. For outputLands it
// sets a small budget that Generate replaces once the ops are drawn.
func onBoundary(src Source, b *core.Budgets, c *scenario.TickClock, p plan) {
	switch p.edge {
	case opsZero:
		b.MaxOps = 0
	case opsExact:
		b.MaxOps = int64(p.n)
	case opsShort:
		b.MaxOps = int64(p.n - 1)
	case outputLands:
		b.MaxOutputBytes = []int64{0, 2, 5, 7, 10, 15}[src.Intn(6)] // sums of "ok", "hello" and ten
	case wallStill:
		b.MaxWall, c.Step = 0, 0
	case wallZero:
		b.MaxWall, c.Step = 0, 1
	default:
		c.Step = 3
		b.MaxWall = 3 * int64(p.n/2)
	}
}

// landing is an op that returned data in a run without an output limit:
// its number (from 1), the usage after it, and whether its data was
// multi-byte UTF-8.
type landing struct {
	op          int64
	wall, total int64
	multi       bool
}

// landOutput sets max_output_bytes so that the scenario's ops land on it:
// it runs them on the reference with no output limit and picks one of the
// ops that returned data (the first half the time, a multi-byte one a
// quarter of the time, when there is one), then sets the output budget to the total after it, or one byte
// less, and, each half the time, max_ops to its number and max_wall to its
// wall, so that two or three budgets are on their edge in that op. With no
// op returning data the output budget is 0.
func landOutput(src Source, sc *scenario.Scenario) {
	g := &sc.Grant
	run := *g
	run.MaxOutputBytes = math.MaxInt64
	sb := core.NewReference(must.Grant(run), refworld.New(sc.World))
	var (
		all   []landing
		multi int
	)
	for i, st := range sc.Steps {
		r := sb.Run(st.Op)
		if r.Hard {
			break
		}
		if r.Data != "" {
			u := sb.Usage()
			l := landing{op: int64(i + 1), wall: u.Wall, total: u.Output, multi: isMultiByte(r.Data)}
			if l.multi {
				multi++
			}
			all = append(all, l)
		}
	}
	if len(all) == 0 {
		g.MaxOutputBytes = 0
		return
	}
	l := all[0] // the first op with data: the shortest reproducer
	switch r := src.Intn(4); {
	case r == 2:
		l = all[src.Intn(len(all))]
	case r == 3 && multi > 0:
		k := src.Intn(multi)
		for _, m := range all {
			if m.multi {
				if k == 0 {
					l = m
					break
				}
				k--
			}
		}
	}
	v := src.Intn(8)
	g.MaxOutputBytes = l.total - int64(v&1) // exactly at, or one byte over
	if v&2 != 0 && !floodEndsBefore(sc, l.op) {
		g.MaxOps = l.op
	}
	if v&4 != 0 && l.wall >= 0 {
		g.MaxWall = l.wall
	}
}

// floodEndsBefore reports whether an op-flood run ends before op n+1
// (index n): with max_ops n, it would stop short of the budget it was
// drawn to run past (runLength sees max_ops as drawn before the ops).
func floodEndsBefore(sc *scenario.Scenario, n int64) bool {
	s := int(n)
	for s > 0 && s < len(sc.Steps) && sc.Steps[s].Class == attack.OpFlood && sc.Steps[s-1].Class == attack.OpFlood {
		s-- // the run through op n+1 starts at s
	}
	for _, st := range sc.Steps[:min(s, len(sc.Steps))] {
		if st.Class == attack.OpFlood {
			return true
		}
	}
	return false
}

// isMultiByte reports whether s is valid UTF-8 with a byte past ASCII in
// its first 256 bytes: a megabyte body of fill is not scanned to its end.
func isMultiByte(s string) bool {
	for i := 0; i < min(len(s), 256); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.ValidString(s)
		}
	}
	return false
}

// rootBase is a root without its trailing slash, canonical: "/work/" and
// "/work/." give "/work", and "/" gives "".
func rootBase(r string) string {
	r = trimSlashes(r)
	if r == "" {
		return ""
	}
	return trimSlashes(spec.Canonical(r))
}

func trimSlashes(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// under reports whether the canonical path c is base or below it, for a
// base from rootBase ("" is the root "/").
func under(c, base string) bool {
	if base == "" {
		return strings.HasPrefix(c, "/")
	}
	return strings.HasPrefix(c, base) && (len(c) == len(base) || c[len(base)] == '/')
}

// underAny reports whether p, canonicalized, is under any of roots.
func underAny(p string, roots []string) bool {
	c := spec.Canonical(p)
	for _, r := range roots {
		if under(c, rootBase(r)) {
			return true
		}
	}
	return false
}
