package realsut

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// MaxDots is the most ".." segments an op may climb with (Adapt drops the
// ops that climb more): the tree's moat is that deep, so a sandbox that
// follows them out of the tree lands where the observer looks.
const MaxDots = 8

// climbs bounds how many levels a sandbox may climb with path p: the ".."
// in it once decoded and normalized as a sandbox may after its check
// (percent escapes, again and again; overlong UTF-8; the dots and slashes
// NFKC folds; "\" as "/"), counted wherever they stand. A sandbox that
// climbs further than the moat is deep lands on the machine. (Decoding
// and spelling take no "." away, so the ".." of p as written are counted
// too.)
func climbs(p string) int {
	for range 4 {
		q := unescape(p)
		if q == p {
			break
		}
		p = q
	}
	return strings.Count(lookalikeDots.Replace(p), "..")
}

// unescape decodes every %XX of s, as a lenient decoder does (Python's
// unquote), leaving a "%" that begins none as it is.
func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// lookalikeDots spells as "." and "/" what a sandbox's decoding or
// normalizing may make of them: overlong UTF-8, and NFKC's compatibility
// forms.
var lookalikeDots = strings.NewReplacer(
	"\xc0\xae", ".", "\xe0\x80\xae", ".", "\uff0e", ".", "\u2024", ".", "\ufe52", ".", "\u2025", "..", "\u2026", "...",
	"\xc0\xaf", "/", "\uff0f", "/", "\u2215", "/", "\u2044", "/", "\\", "/", "\uff3c", "/",
)

// moatOps tells Materialize how deep a moat the ops need: as deep as
// MaxDots. (The factory is not told the scenario's ops; Adapt bounds them.)
var moatOps = []core.Op{{Kind: core.OpRead, Args: []string{strings.Repeat("/..", MaxDots)}}}

// moatDepth is the least moat depth of every tree (realfs.Options): deeper
// than MaxDots and the links of nearly every generated world climb, so
// that a slot's T stays at one path and the allowed directories a server
// is started with repeat.
const moatDepth = 16

// chargeOnly is an op of no kind the SPEC knows: the reference charges it
// (ops and wall, SPEC §5 step 2) and refuses it unknown_op, touching
// nothing. The bridge uses it to charge the budgets the real sandbox does
// not have.
var chargeOnly = core.Op{Kind: "sbxfuzz:charge"}

// bridge is a real sandbox seen as a core.Sandbox. The harness charges the
// budgets and answers what the real sandbox is not asked (ops other than
// fs_read and fs_write, and malformed ones) with the reference; every
// well-formed fs op goes to the real sandbox, and what it did to the tree
// is journaled in the harness's world.
type bridge struct {
	ref      *core.Reference    // charges every op; answers the ops the real sandbox is not asked
	shadow   *core.Reference    // answers, uncharged, the fs ops the real sandbox cannot express
	links    *refworld.Template // the world as materialized, for the directories writes need
	grant    core.Grant
	world    *refworld.World
	tree     *realfs.Tree
	drv      realfs.Driver
	max      int64 // max_output_bytes
	output   int64 // bytes returned by the real sandbox
	halted   core.Kind
	promises []string           // Adapter.Promises
	cleans   bool               // Adapter.CleansDots
	trims    bool               // Adapter.Trims
	lands    bool               // Adapter.JudgesLanding
	parted   bool               // a landed write left the tree other than the model's
	tally    *door.Counter      // the session's; nil outside a session
	counts   bool               // the bridge counts into tally: a check's run, not its replay
	last     realfs.Observation // the tree after the last op
	observed bool               // last is set
	release  func()
	once     sync.Once

	mu      sync.Mutex // Close comes from the oracle's watchdog while Run may still be going
	running bool       // a Run is in progress
	closed  bool       // Close was called
	freed   bool       // the slot was given back
	written []string   // the data of the writes seen, which a read may return without leaking
}

func newBridge(g core.Grant, w *refworld.World, t *realfs.Tree, drv realfs.Driver, release func()) *bridge {
	unbounded := g.Spec()
	unbounded.Budgets = core.Budgets{MaxOps: math.MaxInt64, MaxWall: math.MaxInt64, MaxOutputBytes: math.MaxInt64}
	return &bridge{ref: core.NewReference(g, w), shadow: core.NewReference(must.Grant(unbounded), stoppedClock{w}),
		links: refworld.Prepare(w.Spec()), grant: g, world: w, tree: t, drv: drv,
		max: g.Budgets().MaxOutputBytes, release: release}
}

// Grant implements core.Sandbox: the harness's own copy (see FSOnlyNA).
func (b *bridge) Grant() core.GrantView { return b.grant }

// Usage implements core.Sandbox.
func (b *bridge) Usage() core.Usage {
	u := b.ref.Usage()
	u.Output += b.output
	return u
}

// Close implements io.Closer: it stops the real sandbox and frees the
// tree's slot, once.
//
// A sandbox closed while a Run is still going (a hang) keeps its slot
// until that Run returns: the next scenario must not be materialized in a
// tree the hung op may still write to.
func (b *bridge) Close() error {
	var err error
	b.once.Do(func() {
		err = b.drv.Close()
		if b.tally != nil {
			b.tally.Closed()
		}
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		b.free()
	})
	return err
}

// free gives the slot back once the sandbox is closed and no Run is going.
func (b *bridge) free() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed && !b.running && !b.freed {
		b.freed = true
		b.release()
	}
}

func (b *bridge) enter() {
	b.mu.Lock()
	b.running = true
	b.mu.Unlock()
}

func (b *bridge) leave() {
	b.mu.Lock()
	b.running = false
	b.mu.Unlock()
	b.free()
}

// Run implements core.Sandbox.
func (b *bridge) Run(op core.Op) core.Result {
	if b.halted != core.Invalid {
		return core.Result{Kind: b.halted, Hard: true}
	}
	if !realOp(op) {
		r := b.ref.Run(op)
		if r.Hard {
			b.halted = r.Kind
		}
		return r
	}
	if r := b.ref.Run(chargeOnly); r.Hard {
		b.halted = r.Kind
		return r
	}
	if climbs(op.Args[0]) > MaxDots {
		// It could climb out of the moat, onto the machine: never sent.
		return b.unobserved(op)
	}
	b.enter()
	defer b.leave()
	if op.Kind == core.OpWrite {
		b.written = append(b.written, op.Args[1])
	}
	if op.Kind == core.OpWrite {
		b.makeParent(op.Args[0])
	}
	if !b.observed {
		b.observe("before the op")
	}
	before := b.last
	out, err := b.drv.Do(op)
	if err != nil {
		panic(&door.Failure{Err: err})
	}
	b.observe("after the op")
	after := b.last
	changes := b.tree.Changes(before, after)
	if out.Verdict != realfs.Allowed && out.Detail != "" && b.counts {
		b.tally.Said(b.worldText(out.Detail))
	}
	if b.ownPolicy(op) {
		if !b.journal(b.unlawful(op, changes), said(out), written(op)) {
			// Its answer is a policy of its own: the model's stands in.
			if b.counts {
				b.tally.Cleaned(answerWords(op, out))
			}
			return b.unobserved(op)
		}
		// It did what no cleaning of the path allows: its own answer is
		// judged with it, so that a finding says what it answered.
		return b.ownAnswer(op, out)
	}
	if b.parted {
		// Its tree is not the model's since a write landed: what it does
		// is judged, its answer not.
		b.journal(changes, said(out), written(op))
		if b.counts {
			b.tally.Parted()
		}
		return b.unobserved(op)
	}
	if b.lands && (out.Verdict == realfs.Allowed || out.Verdict == realfs.NotFound) && b.landsInside(op) {
		if !b.journal(b.besides(op, path.Clean(op.Args[0]), changes), said(out), written(op)) {
			// Allowed where it lands, and nothing else done.
			if b.counts {
				b.tally.Landed()
			}
			b.parted = len(changes) > 0
			return b.unobserved(op)
		}
		return b.ownAnswer(op, out)
	}
	b.journal(changes, said(out), written(op))
	if out.Verdict == realfs.Unsupported || b.excuseStricter(op, out, len(changes) > 0) {
		return b.unobserved(op)
	}
	k := b.verdict(op, out)
	if b.counts {
		switch model := b.modelKind(op); {
		case door.AllowListRefusal(model) && k == core.NotFound:
			// Counted neither way: a server with no allow-list that
			// looked and found nothing answers so, and so does one that
			// hides what the grant forbids (a mount namespace, a chroot).
		case door.AllowListRefusal(model):
			b.tally.Refused(op.Kind, k == core.OK)
		case k == core.OK:
			// A read or a write done, not a not_found: a server that
			// cannot see its tree at all answers every op not_found,
			// which would read as ops let through.
			b.tally.Passed(op.Kind)
		}
	}
	if k == core.OK && op.Kind == core.OpWrite {
		b.journalLeft(op, changes)
	}
	if k == core.OK && op.Kind == core.OpRead {
		if out.Whole && b.counts {
			b.tally.Whole(out.Data)
		}
		if out.Numbered && b.counts {
			b.tally.Numbered()
		}
		return b.deliver(out.Data)
	}
	return core.Result{Kind: k}
}

// observe takes a fresh observation of the tree as b.last; when the tree
// cannot be observed, no op can be judged (when names the moment, for
// the failure's words).
func (b *bridge) observe(when string) {
	var err error
	if b.last, err = b.tree.Observe(); err != nil {
		b.observed = false
		panic(&door.Failure{Err: fmt.Errorf("observing the tree %s: %w", when, err)})
	}
	b.observed = true
}

// settle journals what the sandbox changed since the last observation,
// and takes it in, before the harness changes the tree itself (makeParent,
// writeDisk), which then observes it afresh: a change a sandbox makes
// after it answered (a server that writes once it has replied) would
// otherwise be taken in by that fresh observation and never judged. It is
// judged on the op under way, as it is where the op's own after
// observation is the first to show it.
func (b *bridge) settle() {
	if !b.observed {
		return // the next op's before observation is the first: nothing to compare
	}
	prev := b.last
	b.observe("before the harness's own change to it")
	b.journal(b.tree.Changes(prev, b.last), "", "")
}

// journalLeft journals what the file that op, a write the sandbox said
// it did and the model allows, leads to holds, when the write changed
// nothing there and the file does not hold its data: a sandbox that says
// "saved" and wrote nothing (an error swallowed), or left an old file as
// it was, is judged at the write, by the oracle's check of what an
// allowed write left (SPEC §8). Nothing there is journaled as a removal
// is, an empty write, and so is a directory made there (journaled as one,
// at the directory's path, which the check does not read as the file's).
func (b *bridge) journalLeft(op core.Op, changes []realfs.Change) {
	p, ok := b.links.Resolve(op.Args[0])
	if !ok || b.modelKind(op) != core.OK || slices.ContainsFunc(changes, func(c realfs.Change) bool { return c.Path == p && !c.Dir }) {
		return // what changed there is journaled, and judged
	}
	e, ok := b.last.Find(p)
	switch {
	case ok && e.Holds(op.Args[1]):
		// Written as it was: nothing to change.
	case ok && e.Mode.IsRegular():
		b.world.Write(p, b.worldText(e.Data))
	default:
		b.world.Write(p, "")
	}
}

// worldText is text, the content of a file the sandbox wrote or its words,
// with the tree's root cut out, as it is out of answers: a server that
// stores the absolute path of what it wrote (ADK's artifact metadata)
// stores another one in the replay's tree, which is no difference of its
// own, and words name the world's paths.
func (b *bridge) worldText(text string) string { return strings.ReplaceAll(text, b.tree.Root(), "") }

// said is all the sandbox answered to an op: a read's data, the text of
// any other answer (a write's, which may show the file it overwrote; a
// refusal's, which may quote what it read), and what else the answer
// carried, where a forbidden file's content is a leak wherever it comes.
func said(out realfs.Outcome) string { return out.Data + out.Detail + out.Carried }

// answerWords is the sandbox's answer to op in words: its verdict, with
// the bytes a read returned.
func answerWords(op core.Op, out realfs.Outcome) string {
	if out.Verdict == realfs.Allowed && op.Kind == core.OpRead {
		return fmt.Sprintf("allowed, with %d bytes", len(out.Data))
	}
	return out.Verdict.String()
}

// ownAnswer is the sandbox's own answer to op, as the oracle judges it.
func (b *bridge) ownAnswer(op core.Op, out realfs.Outcome) core.Result {
	if k := b.verdict(op, out); k != core.OK || op.Kind != core.OpRead {
		return core.Result{Kind: k}
	}
	return b.deliver(out.Data)
}

// landsInside reports whether the model denies op, a read or a write, for
// its path alone, and the world's links lead that path under a root of
// its kind: a sandbox that judges where an op lands allows it.
func (b *bridge) landsInside(op core.Op) bool {
	if k := b.modelKind(op); k != core.FSReadDenied && k != core.FSWriteDenied || spec.HasTraversal(op.Args[0]) {
		return false
	}
	r, ok := b.links.Resolve(op.Args[0])
	if op.Kind == core.OpRead {
		return ok && b.grant.MayRead(r)
	}
	return ok && b.grant.MayWrite(r)
}

// ownPolicy reports whether the sandbox answers op by a policy of its
// own, not SPEC §4's: a path with ".." that it cleans (Adapter.CleansDots),
// one with white space or a quote at an end that it trims (Adapter.Trims),
// a read with "\" (backslashRead).
func (b *bridge) ownPolicy(op core.Op) bool {
	p := op.Args[0]
	return b.cleans && spec.HasTraversal(p) || b.trims && mcp.Trimmed(p) || backslashRead(op)
}

// unlawful is changes less what a sandbox that cleans ".." out of the
// path of op (a write), or trims it, before it checks it may do: write the
// path so made where the world's links lead it, when SPEC §5 allows that
// path, making the directories on the way there inside the write roots.
// Whatever else changed, a write through a link's parent included, is
// left to judge.
func (b *bridge) unlawful(op core.Op, changes []realfs.Change) []realfs.Change {
	if op.Kind != core.OpWrite {
		return changes
	}
	p := op.Args[0]
	if b.trims {
		p = mcp.Trim(p)
	}
	clean := core.Op{Kind: op.Kind, Args: []string{path.Clean(p), op.Args[1]}}
	if b.modelKind(clean) != core.OK {
		return changes
	}
	return b.besides(op, clean.Args[0], changes)
}

// besides is changes less those of a write of op's data to p where the
// world's links lead it, inside the write roots: the file written there,
// and the directories made on the way. For a read, it is changes.
func (b *bridge) besides(op core.Op, p string, changes []realfs.Change) []realfs.Change {
	r, ok := b.links.Resolve(p)
	if op.Kind != core.OpWrite || !ok || !b.grant.MayWrite(r) {
		return changes
	}
	return slices.DeleteFunc(slices.Clone(changes), func(c realfs.Change) bool {
		if c.Dir {
			return c.Kind == realfs.Created && strings.HasPrefix(r, c.Path+"/") && b.grant.MayWrite(c.Path)
		}
		return c.Path == r && !c.Link && c.Kind != realfs.Removed
	})
}

// realOp reports whether op goes to the real sandbox: a well-formed
// fs_read or fs_write.
func realOp(op core.Op) bool {
	n, _ := spec.Arity(op.Kind)
	return (op.Kind == core.OpRead || op.Kind == core.OpWrite) && spec.WellFormed(op.Args, n)
}

// journal writes what the real sandbox did into the harness's world, so
// that the oracle judges it: each change to the tree is a write of the
// path changed (a removal writes nothing there, a directory is written
// with its path and a trailing slash), and data that holds a forbidden
// file's canary or content, answered or in a file changed (copied), is a
// read of that file.
//
// A change of a link itself (made, removed, or replaced by a file) is
// journaled as a write of the link's directory instead: a write of the
// link's path would be judged where the world's link leads, but the
// sandbox changed the link's own place, its directory, which confinement
// judges by the fs_write roots and which no denial may change.
//
// A file past realfs.MaxInline is known by its head: one that holds the
// whole of what the op wrote (wrote) is journaled with it.
//
// It reports whether it journaled anything.
func (b *bridge) journal(changes []realfs.Change, data, wrote string) bool {
	for _, c := range changes {
		switch {
		case c.Link:
			b.world.Write(linkDir(c.Path), "")
		case c.Dir:
			b.world.Write(c.Path+"/", "")
		case c.Kind == realfs.Removed:
			b.world.Write(c.Path, "")
		case len(wrote) > realfs.MaxInline && b.holds(c.Path, wrote):
			b.world.Write(c.Path, wrote)
		default:
			b.world.Write(c.Path, b.worldText(c.Data))
		}
		b.copied(c)
	}
	if data != "" {
		if p, ok := b.tree.Leak(data); ok && !b.innocent(data) {
			b.world.Read(p)
			return true
		}
	}
	return len(changes) > 0
}

// copied journals a read of the forbidden file whose canary or content c,
// a file the sandbox made or changed, holds: a sandbox that copies a
// secret, or links it, into a place it may write leaked it there, though
// its answer said nothing. The secret's own path changed is no copy.
func (b *bridge) copied(c realfs.Change) {
	if c.Dir || c.Link || c.Kind == realfs.Removed || c.Data == "" {
		return
	}
	if p, ok := b.tree.Leak(c.Data); ok && p != c.Path && !b.innocent(c.Data) {
		b.world.Read(p)
	}
}

// linkDir is the directory a link at world path p is an entry of, as the
// journal writes a directory: "/x/" for "/x/l"; for T itself (a sandbox
// put a link in its place) the moat's level above it, "/../".
func linkDir(p string) string {
	if p == "/" {
		return "/../"
	}
	return strings.TrimSuffix(path.Dir(p), "/") + "/"
}

// holds reports whether the file at the world path p, as the op under way
// left it (b.last), is a regular file whose whole content is data.
func (b *bridge) holds(p, data string) bool {
	e, ok := b.last.Find(p)
	return ok && e.Holds(data)
}

// written is the data a write op writes, "" for any other op.
func written(op core.Op) string {
	if op.Kind == core.OpWrite && len(op.Args) == 2 {
		return op.Args[1]
	}
	return ""
}

// innocent reports whether data, which holds a forbidden file's content
// but no canary, may hold it because an earlier write put it in a file the
// sandbox may read: the harness's own words, not a leak.
func (b *bridge) innocent(data string) bool {
	if strings.Contains(data, realfs.CanaryMark) {
		return false
	}
	for _, w := range b.written {
		if len(w) >= 8 && strings.Contains(data, w) {
			return true
		}
	}
	return false
}

// kind maps a verdict class to the SPEC §2 kind the oracle compares: a
// real sandbox says "denied", not why, so a denial is path_traversal for a
// path with a ".." segment (the lexical check decides first) and
// fs_read_denied or fs_write_denied otherwise.
func (b *bridge) kind(op core.Op, v realfs.Verdict) core.Kind {
	switch v {
	case realfs.Allowed:
		return core.OK
	case realfs.NotFound:
		return core.NotFound
	case realfs.Refused:
		return b.refusal(op)
	}
	switch {
	case spec.HasTraversal(op.Args[0]):
		return core.PathTraversal
	case op.Kind == core.OpRead:
		return core.FSReadDenied
	}
	return core.FSWriteDenied
}

// verdict is kind, noting the words of a refusal the profile does not
// tell, which is read as a denial: a replay shows them.
func (b *bridge) verdict(op core.Op, out realfs.Outcome) core.Kind {
	if out.Verdict == realfs.Refused && b.counts {
		b.tally.Unknown()
	}
	return b.kind(op, out.Verdict)
}

// excuseStricter reports whether the real sandbox refused, without
// touching the tree, an op the model allows (stricter) for a reason it
// does not promise to allow (Adapter.Promises): such an op is counted
// under its reason, not judged, and answered as the model does. A
// stricter refusal it promises to allow is judged: verdict-matches-model.
func (b *bridge) excuseStricter(op core.Op, out realfs.Outcome, changed bool) bool {
	if !stricter(b.modelKind(op), out.Verdict, changed) {
		return false
	}
	reason := b.stricterReason(op, out.Detail)
	if door.Promised(b.promises, reason) {
		return false
	}
	if b.counts {
		b.tally.Stricter(reason, judge.FormatOp(op), b.worldText(out.Detail))
	}
	return true
}

// danglingWrite reports whether op is a write to a link whose target the
// world does not hold yet: the path's last name is the link, not one of
// the directories before it (a new file in a directory a link leads to
// is a write through a link).
func (b *bridge) danglingWrite(op core.Op) bool {
	if op.Kind != core.OpWrite || spec.HasTraversal(op.Args[0]) {
		return false
	}
	c := spec.Canonical(op.Args[0])
	r, ok := b.links.Resolve(c)
	dir, ok2 := b.links.Resolve(path.Dir(c))
	if !ok || !ok2 || r == path.Join(dir, path.Base(c)) {
		return false
	}
	_, there := b.world.Lookup(r)
	return !there
}

// refusal is the refusal SPEC §5 gives op, for a sandbox whose words
// could not tell a denial from a missing file: path_traversal, denied
// (lexically or on the resolved path) or not_found. An op the SPEC allows
// is denied: the sandbox refused it, which verdict-matches-model judges.
func (b *bridge) refusal(op core.Op) core.Kind {
	if k := b.modelKind(op); k != core.OK {
		return k
	}
	if op.Kind == core.OpWrite {
		return core.FSWriteDenied
	}
	return core.FSReadDenied
}

// unobserved answers an op the real sandbox could not express with the
// shadow reference's own check and effect (SPEC §5 step 4; the op was
// charged already): the op is not judged against the real sandbox, and a
// write it allows is made by the harness in the world and, here, in the
// tree, so that the two stay alike.
func (b *bridge) unobserved(op core.Op) core.Result {
	r := b.shadow.Run(op)
	switch {
	case r.Kind != core.OK:
		return r
	case op.Kind == core.OpWrite:
		if p, ok := b.links.Resolve(op.Args[0]); ok {
			switch err := b.writeDisk(p, op.Args[1]); {
			case err == nil, b.parted:
			case sandboxMade(err):
				// What the sandbox made stands where the model writes (a
				// directory at a file's path, made by an earlier op and
				// judged there; a directory it shut): from here its tree
				// is not the model's, and what it does is judged, its
				// answers not.
				b.parted = true
			default:
				// T moved, or the disk failed: no later op can be judged.
				panic(&door.Failure{Err: fmt.Errorf("the harness's own write of %s, for an op the sandbox's answer did not decide: %w", p, err)})
			}
		}
		return r
	}
	return b.deliver(r.Data)
}

// deliver is SPEC §5 step 5 for data a read returned: charged against
// max_output_bytes, or the halt.
func (b *bridge) deliver(data string) core.Result {
	n := int64(len(data))
	if b.Usage().Output+n > b.max {
		b.halted = core.MaxOutputBytes
		return core.Result{Kind: core.MaxOutputBytes, Hard: true}
	}
	b.output += n
	return core.Result{Kind: core.OK, Data: data}
}

// stoppedClock is the shadow reference's world: the harness's, but with a
// clock that never moves, since the ops the shadow answers were charged
// (and the clock read) already.
type stoppedClock struct{ core.World }

func (stoppedClock) Now() (int64, bool) { return 0, true }

// sandboxMade reports whether err, writeDisk's, is of something a
// sandbox put in the harness's way in T (realfs.InTheWay), not of T moved
// or of the disk.
func sandboxMade(err error) bool {
	var moved *realfs.MovedError
	return !errors.As(err, &moved) && realfs.InTheWay(err)
}

// writeDisk writes data at r, a resolved world path, in the tree, through
// os.Root, for an op the real sandbox could not express. What the sandbox
// changed before is journaled first (settle), and the tree is observed
// afresh after, so the write is never taken for the sandbox's.
// In a world a disk holds (realfs.Holds) it fails only where the sandbox
// changed the tree under it (moved T, put a directory in the way, shut a
// directory to a harness that is not root) or the disk failed.
func (b *bridge) writeDisk(r, data string) error {
	b.settle()
	b.observed = false
	root, err := b.tree.OpenRoot() // T as it was made: a link the sandbox put at its path is not followed
	if err != nil {
		return err
	}
	defer root.Close()
	rel := strings.TrimPrefix(r, "/")
	err = root.MkdirAll(path.Dir(rel), 0o755)
	if err == nil {
		err = writeReplacing(root, rel, data)
	}
	b.observe("after the harness's own write")
	return err
}

// writeReplacing writes data to rel in root under a new name, then
// renames it over rel: a hard link a sandbox put at rel, to a file
// anywhere on the disk, is replaced, not written through.
func writeReplacing(root *os.Root, rel, data string) error {
	// A name no world draws, written new: what a sandbox put at it fails
	// the write rather than take it.
	tmp := path.Join(path.Dir(rel), fmt.Sprintf(".sbxfuzz-write-%016x", rand.Uint64()))
	err := realfs.WriteNew(root, tmp, data)
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// makeParent creates the directory a write's file goes in, when the path
// is absolute and free of ".." and the directory of the path it resolves
// to through the world's links is missing: a real disk needs it, the flat world of SPEC
// §1 does not. It creates the resolved directory, which is free of links,
// through os.Root, so nothing leads it out of the tree; what the sandbox
// changed before is journaled first (settle), and the tree is observed
// afresh after, so the directory is never taken for the sandbox's doing.
//
// Only where the grant lets the resolved file be written: a write that a
// link leads out of the roots meets the disk as it is. Made there, the
// directory would hide the escape of a sandbox that, finding no parent to
// resolve, checks the path as written and then makes the directories
// itself (Qodo Command's write_file under a link to a directory outside:
// the new directory and the file land outside).
func (b *bridge) makeParent(p string) {
	if !strings.HasPrefix(p, "/") || spec.HasTraversal(p) {
		return
	}
	r, ok := b.links.Resolve(p) // a link in the last name leads the file elsewhere: its directory is needed
	dir := path.Dir(r)
	if !ok || dir == "/" || !b.grant.MayWrite(r) {
		return
	}
	root, err := b.tree.OpenRoot() // T as it was made: a link the sandbox put at its path is not followed
	if err != nil {
		return
	}
	defer root.Close()
	rel := strings.TrimPrefix(dir, "/")
	if _, err := root.Lstat(rel); err == nil {
		return
	}
	b.settle()
	root.MkdirAll(rel, 0o755) // a place taken by a file: the op meets what a real disk would
	b.observe("after the harness made a directory")
}
