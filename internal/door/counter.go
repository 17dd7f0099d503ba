package door

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// PromisesAll, in a real sandbox's promises, promises to allow every op
// the model allows: any refusal of one is judged.
const PromisesAll = "all"

// Promised reports whether a sandbox whose profile promises promises
// promises to allow what it refused for reason: then the refusal is
// judged, a verdict-matches-model finding, and not counted stricter.
func Promised(promises []string, reason string) bool {
	return slices.Contains(promises, PromisesAll) || slices.Contains(promises, reason)
}

// Counter is what one session of a real sandbox counts as its Tally,
// safe for concurrent use: the oracle's watchdog may close a sandbox
// while another runs. The zero Counter counted nothing.
type Counter struct {
	// CountsPassed says the door counts the ops the model allows that the
	// sandbox let through (Passed), so that a session that let none
	// through reads so (Tally.CountsPassed) rather than as a door that
	// does not count them. Set it before the Counter is used.
	CountsPassed bool

	mu       sync.Mutex
	stricter map[string]int64
	examples map[string]string // the least op of each stricter reason
	exSaid   map[string]string // what the sandbox said refusing that op
	kinds    map[string]OpCounts
	whole    int64
	example  string // the least of the answers taken whole
	filled   int64  // refusals whose journal the door filled (Filled)
	cached   int64  // fetches a server answered from its cache (Cached)
	modelled int64  // ops answered as the model after a stricter refusal (Modelled)
	cleaned  int64  // ops with ".." a server cleans by its own policy (Cleaned)
	landed   int64  // ops the model denies, allowed where they land (Landed)
	parted   int64  // ops after a landed write that changed the tree (Parted)
	bare     int64  // ops with a connection that sent no request (Bare)
	numbered int64  // reads answered with numbered lines (Numbered)
	kept     int64  // fetches of a name from an answer kept from an earlier op (Kept)
	late     int64  // requests that reached the world between ops (Late)
	lateEx   string // the least of them
	moved    int64  // fetches let through on lookups of its own off the model's line (LineMoved)
	answer   string // the server's own answer to the last of them
	unknown  int64  // refusals in words the profile does not know (Unknown)
	said     int64  // refusals in words of the sandbox's own (Said)
	saidLast string // the words of the last of them
	open     int    // sandboxes opened and not closed yet
}

// one adds one to n, one of c's counts.
func (c *Counter) one(n *int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	*n++
}

// Opened notes a sandbox built, and reports whether its ops count: the
// first of the session's open sandboxes is a check's run; one built while
// it is open is the replay's, which meets the same ops and is not counted
// again.
func (c *Counter) Opened() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open++
	return c.open == 1
}

// Closed notes a sandbox closed.
func (c *Counter) Closed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open--
}

// Stricter counts one op refused for reason that the model allows; op is
// the op as a scenario writes it (its first word its kind), kept as an
// example of its reason with said, the sandbox's words refusing it ("" for
// none).
func (c *Counter) Stricter(reason, op, said string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stricter == nil {
		c.stricter, c.examples, c.exSaid = map[string]int64{}, map[string]string{}, map[string]string{}
	}
	c.stricter[reason]++
	c.examples[reason], c.exSaid[reason] = leastWithWords(c.examples[reason], c.exSaid[reason], leastExample("", op), leastExample("", said))
	kind, _, _ := strings.Cut(op, " ")
	c.count(kind, func(n *OpCounts) { n.Stricter++ })
}

// count changes the counts of one op kind; c.mu is held.
func (c *Counter) count(kind string, change func(*OpCounts)) {
	if c.kinds == nil {
		c.kinds = map[string]OpCounts{}
	}
	n := c.kinds[kind]
	change(&n)
	c.kinds[kind] = n
}

// Filled counts one refusal whose journal the door filled with the
// model's entries (a proxy that refused an internal host without looking
// it up is journaled as the model looks it up), so that a replay can say
// the journal shown is not the sandbox's.
func (c *Counter) Filled() { c.one(&c.filled) }

// Modelled counts one op a child was asked after its stricter refusal
// earlier in the scenario, answered as the model (Tally.Modelled).
func (c *Counter) Modelled() { c.one(&c.modelled) }

// Cleaned counts one op whose path has ".." or "\", sent to a server that
// reads them by a policy of its own, answered as the model (Tally.Cleaned);
// answer is what the server answered, in words.
func (c *Counter) Cleaned(answer string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cleaned++
	c.answer = answer
}

// Unknown counts one refusal in words that the profile's lists do not
// tell (neither a denial's nor a missing file's), read as a denial
// (Tally.Unknown); Said keeps the words.
func (c *Counter) Unknown() { c.one(&c.unknown) }

// Said counts one op the sandbox refused, or found nothing for, in words
// of its own (Tally.Said): a replay shows them beside the kind the model
// names it by (a real sandbox says it denied, not why).
func (c *Counter) Said(words string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.said++
	c.saidLast = leastExample("", words)
}

// Landed counts one op the model denies for its path that a sandbox which
// judges where an op lands allowed, the world's links leading it under a
// root (Tally.Landed).
func (c *Counter) Landed() { c.one(&c.landed) }

// Parted counts one op a sandbox which judges where an op lands was
// asked after such an op of its changed its tree, answered as the model
// (Tally.Parted).
func (c *Counter) Parted() { c.one(&c.parted) }

// Bare counts one op during which the sandbox opened a connection to the
// world and sent no request on it, journaled as the op's fetch
// (Tally.Bare).
func (c *Counter) Bare() { c.one(&c.bare) }

// LineMoved counts one fetch the sandbox let through on lookups of its
// own that all answered a public address, where the model's one lookup
// answers an internal one (Tally.LineMoved).
func (c *Counter) LineMoved() { c.one(&c.moved) }

// Kept counts one fetch of a name the sandbox connected for without
// looking it up in the op (Tally.Kept).
func (c *Counter) Kept() { c.one(&c.kept) }

// Numbered counts one read answered with the file's lines each after a
// line number, which the profile does not cut (Tally.Numbered).
func (c *Counter) Numbered() { c.one(&c.numbered) }

// Cached counts one fetch a server answered from a cache of its own
// (Tally.Cached).
func (c *Counter) Cached() { c.one(&c.cached) }

// Late counts n requests that reached the world between ops, the least of
// them first (Tally.Late).
func (c *Counter) Late(n int64, first string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.late += n
	c.lateEx = leastExample(c.lateEx, first)
}

// Whole counts one read whose answer, text, was taken whole as the
// file's bytes (realfs.Outcome.Whole).
func (c *Counter) Whole(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.whole++
	c.example = leastExample(c.example, text)
}

// leastExample is the lesser of two example answers, "" being none: the
// least, not the first, so that the one a campaign shows does not depend
// on which worker met it first. b is cut short first, between runes.
func leastExample(a, b string) string {
	const most = 120 // bytes of an answer kept: enough to recognize it
	if len(b) > most {
		cut := most
		for cut > most-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
			cut-- // b[cut] goes on a rune begun before it: leave that rune out
		}
		b = b[:cut]
	}
	if a == "" || b != "" && b < a {
		return b
	}
	return a
}

// Passed counts one op of kind (core.OpRead…) the model allows that the
// sandbox let through.
func (c *Counter) Passed(kind string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count(kind, func(n *OpCounts) { n.Passed++ })
}

// Refused counts one op of kind the model refuses for the grant (an
// AllowListRefusal), and whether the sandbox let it through: a sandbox
// that lets most of them through keeps no allow-list, or was not given
// the grant.
func (c *Counter) Refused(kind string, letThrough bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count(kind, func(n *OpCounts) {
		n.Refused++
		if letThrough {
			n.LetThrough++
		}
	})
}

// AllowListRefusal reports whether the model gives k for what the
// grant's allow-lists forbid (Counter.Refused): a path's traversal, a
// path or host outside the allow-list. An internal address is not one: a
// host the grant lists may answer with one.
func AllowListRefusal(k core.Kind) bool {
	switch k {
	case core.PathTraversal, core.FSReadDenied, core.FSWriteDenied, core.EgressDenied:
		return true
	}
	return false
}

// Read returns what was counted, with skipped (nil: none) as the count of
// a server's skipped stdout lines.
func (c *Counter) Read(skipped func() int64) Tally {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := Tally{CountsPassed: c.CountsPassed, Whole: c.whole, WholeExample: c.example, Filled: c.filled, Cached: c.cached, Modelled: c.modelled, Cleaned: c.cleaned, CleanedAnswer: c.answer, Unknown: c.unknown, Said: c.said, SaidWords: c.saidLast, Landed: c.landed, Parted: c.parted, Bare: c.bare, Numbered: c.numbered, Kept: c.kept, Late: c.late, LateExample: c.lateEx, LineMoved: c.moved}
	for _, n := range c.kinds { // the sums are the kinds'
		out.Passed += n.Passed
		out.Refused += n.Refused
		out.LetThrough += n.LetThrough
	}
	if len(c.stricter) > 0 {
		out.Stricter, out.StricterExamples, out.StricterSaid = maps.Clone(c.stricter), maps.Clone(c.examples), maps.Clone(c.exSaid)
	}
	if len(c.kinds) > 0 {
		out.Kinds = maps.Clone(c.kinds)
	}
	if skipped != nil {
		out.SkippedLines = skipped()
	}
	return out
}

// leastWithWords is the lesser of two examples, each with the words said
// refusing it, "" being none: the least example, and for one met with
// other words too, the least words, so that neither depends on which was
// met first.
func leastWithWords(ex, said, ex2, said2 string) (string, string) {
	switch least := leastExample(ex, ex2); {
	case ex2 == "" || least != ex2:
		return ex, said
	case ex != ex2:
		return ex2, said2
	}
	return ex, leastExample(said, said2)
}
