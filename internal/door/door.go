// Package door defines Target, the one shape in which every door to a
// sandbox under test hands it to the harness: the reference and the
// mutants in process, a process speaking sbxfuzz/1, and the real-disk
// doors (osroot, an MCP server). It sits below the registry (package sut,
// which names it sut.Target) and the doors that build one (package
// realsut), so that a door builds the harness's type directly instead of
// a look-alike the registry converts.
package door

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Target is a sandbox under test as the harness starts it. Each worker of a
// campaign starts a session of its own, so that a sandbox behind a process
// is started once per worker and reused across scenarios, never shared
// between goroutines.
type Target struct {
	Name string // the --sut value that names it
	// Start begins a session: a factory for one goroutine at a time, and a
	// function that ends the session (stopping what it started). In-process
	// sandboxes give every session the same factory.
	Start func() (f core.Factory, end func() error, err error)
	// Adapt, when set, rewrites each generated scenario into one the
	// sandbox can express, or returns nil to skip it (SPEC §13: only
	// what a real sandbox can be asked is drawn).
	Adapt func(*scenario.Scenario) *scenario.Scenario
	// NotApplicable lists the invariants that cannot be observed on the
	// sandbox, by ID, with the reason; reports show them as n/a.
	NotApplicable map[string]string
	// KindsNotApplicable lists the result kinds no scenario the door asks
	// can give (Adapt drops the ops that would), by name, with the
	// reason; reports show them as n/a rather than never reached.
	KindsNotApplicable map[string]string
	// Refuse, when set, says why the sandbox cannot be set up for a
	// scenario at all (a world too large for a real tree), nil when it
	// can: replay, minimize and import report such a scenario as bad
	// input (exit 2) rather than blame the sandbox; Adapt leaves it out.
	Refuse func(*scenario.Scenario) error
	// Unasked, when set, says which ops the sandbox is never asked, and
	// why (a profile with no tool for them): Adapt drops them, and a
	// campaign's summary says so, since nothing of them is judged.
	Unasked string
	// Asks, when set, says in a line what the sandbox is asked of a
	// scenario (what Adapt keeps), so that a replay that skips steps
	// says why.
	Asks string
	// Why, when set, says in a clause why Adapt keeps nothing of a
	// scenario, or "" when it cannot tell, so that a replay of a file it
	// skips whole says why.
	Why func(*scenario.Scenario) string
	// ConfirmHangs says that an op the sandbox did not answer in time may
	// be the machine's load rather than the sandbox's fault (a real
	// sandbox, a server in a process of its own): a campaign judges the
	// scenario once more on a fresh session before such a hang counts.
	ConfirmHangs bool
	// Flags are the command-line flags beyond --sut that a replay needs
	// to judge the sandbox the same way (--profile NAME, a file's as an
	// absolute path): every reproduce line of a finding carries them.
	Flags []string
	// RootBlock, when positive, has a campaign draw the read roots of
	// RootBlock scenarios in a row from one base (generators'
	// Generator.FixRoots), so that a sandbox started with its allowed
	// directories serves the run of them without a restart; the base
	// moves on from block to block.
	RootBlock int
	// StartCounted, when set, starts a session as Start does and also
	// returns a function that reads what the session counted beside its
	// checks (a real sandbox's, SPEC §14): a campaign starts its workers'
	// sessions with it and sums their tallies in its summary. The
	// function is safe to call from any goroutine, before or after end.
	StartCounted func() (f core.Factory, end func() error, tally func() Tally, err error)
}

// Tally is what a session of a real sandbox counted beside its checks.
// The zero Tally counted nothing.
type Tally struct {
	// Stricter counts the ops the sandbox refused that the model allows
	// and its profile does not promise to allow (SPEC §14), by reason:
	// not findings.
	Stricter map[string]int64
	// StricterExamples holds, by reason, the least of the ops counted
	// under it (as a scenario writes them, cut short): one to replay
	// when a reason does not say enough. StricterSaid holds, by reason,
	// what the sandbox said refusing that op (a reason names a shape of
	// op, not why: a server that fails every call is told by its words).
	StricterExamples map[string]string
	StricterSaid     map[string]string
	// SkippedLines counts the lines a server wrote on stdout that were
	// not JSON-RPC (logs), over every server of the session.
	SkippedLines int64
	// Passed counts the ops the model allows that the sandbox let through
	// (the world's answer came back), when CountsPassed: with Stricter
	// ops and none passed, the sandbox refused all it was asked that the
	// model allows, and only its refusals were judged (a profile that
	// does not fit it, say).
	Passed int64
	// CountsPassed says the door counts Passed (Counter.CountsPassed).
	CountsPassed bool
	// Refused counts the ops the model refuses for the grant
	// (AllowListRefusal) on a door that counts them, LetThrough those of
	// them the sandbox let through: most let through, and the sandbox
	// keeps no allow-list of its own, or its profile does not give it the
	// grant. A file op answered not found is counted neither way; nor is a
	// fetch of a granted host's internal address, which says nothing of
	// the allow-list (its findings say what the sandbox let through).
	Refused, LetThrough int64
	// Kinds holds Stricter, Passed, Refused and LetThrough by op kind
	// (core.OpRead…): a sandbox may keep an allow-list for one kind and
	// none for another, or refuse every write and no read, and the sums
	// read as one policy.
	Kinds map[string]OpCounts
	// Whole counts the reads whose answer the door could not find the
	// content in, taken whole as the file's bytes (an MCP profile whose
	// result does not fit the server, or whose refusals miss one of its
	// refusals); WholeExample is the least such answer, cut short.
	Whole        int64
	WholeExample string
	// Stale counts the ops whose effect came from an earlier scenario's
	// world: a proxy that fetched from a DNS answer it kept from a
	// scenario before (a DNS cache). From the first, the door gave every
	// sandbox a fresh start, so the findings they caused were judged
	// again there. The door counts them over all its sessions, those
	// that judge findings again included, and one session reports them.
	Stale int64
	// Cached counts the fetches a fetch server answered without asking
	// the world, with no error, for a URL it had fetched before: from a
	// cache of its own. They are answered as the model does, neither
	// judged nor counted stricter.
	Cached int64
	// Isolated is set once the door gives every sandbox a process of its
	// own, having seen one keep state from a sandbox to the next (DNS
	// answers, a fetch server's cache): a scenario judged before on a
	// process its run and replay shared may be judged again.
	Isolated bool
	// Modelled counts the ops an exec: child was asked after its stricter
	// refusal earlier in the scenario: its budgets had parted from the
	// model's, so the model's answer stands in for its verdict, and only
	// what it did in the world is judged.
	Modelled int64
	// Cleaned counts the ops with ".." sent to a server that cleans them
	// by a policy of its own (an MCP profile's "dotdot"), and the reads
	// with "\", which a server may read as a separator: the model's
	// answer stands in, and only what it did is judged. CleanedAnswer is
	// the server's own answer to the last, in words.
	Cleaned       int64
	CleanedAnswer string
	// Unknown counts the refusals in words that the profile's lists do
	// not tell, read as denials (their words are Said's).
	Unknown int64
	// Said counts the refusals (and the not-founds) in words of the
	// sandbox's own, whichever the profile tells; SaidWords are the words
	// of the last. A replay shows them beside the kind they are read as.
	Said      int64
	SaidWords string
	// Landed counts the ops the model denies for their path that a
	// sandbox which judges where an op lands allowed, the world's links
	// leading them under a root of their kind, and nothing else done
	// (an MCP profile's "lands"): answered as the model does, not judged.
	Landed int64
	// Parted counts the ops such a sandbox was asked after one of them
	// changed its tree: where the link led is not where the model's
	// write goes, so its tree is not the model's from then on, and the
	// model's answer stands in; what it did is judged.
	Parted int64
	// Bare counts the ops during which the sandbox connected to the world
	// and sent no request (a TLS hello to port 443, a browser's preconnect
	// to a host it then refuses): journaled as the op's fetch (SPEC §14),
	// which a replay says, lest the entry be read as a request sent.
	Bare int64
	// Numbered counts the reads a real sandbox answered with the file's
	// lines each after a line number (cat -n), which its profile does
	// not cut: each is a verdict-matches-model finding of the profile's
	// making, and the run says how to cut them.
	Numbered int64
	// Kept counts the fetches of a name the sandbox connected for with no
	// lookup of it in the op: from an answer it kept from an earlier op
	// (a DNS cache; Traffic Server's HostDB keeps even one of TTL 0). The
	// world journals its resolve before such a fetch, moving the name's
	// dns line on as the model does, so on a line whose answers differ
	// the fetch reads as one from an address no longer the last answered:
	// a finding of the cache, which the run and a replay say.
	Kept int64
	// Late counts the requests that reached the world between ops, after
	// the op that made them had answered: served nothing and journaled
	// nowhere, so not judged (a sandbox that goes on fetching after it
	// answers). LateExample is the least of them, "host address path".
	Late        int64
	LateExample string
	// LineMoved counts the fetches the sandbox let through on lookups of
	// its own that all answered a public address, where the model's one
	// lookup a fetch answers an internal one: a guard that looks a name up
	// more than once a fetch (and checks every answer), or a sandbox that
	// looked up a name the model refused (one that differs from a granted
	// name in case alone), moves the name's dns line elsewhere than the
	// model's, and saw no internal address.
	// The model's answer stands in; where it connected is judged.
	LineMoved int64
	// Filled counts the refusals whose journal the door filled with the
	// model's entries, the sandbox having made none (Counter.Filled).
	Filled int64
}

// OpCounts are a Tally's counts of one op kind.
type OpCounts struct {
	// Stricter counts the ops refused that the model allows, Passed those
	// let through (Tally.Passed).
	Stricter, Passed int64
	// Refused counts the ops the model refuses for the grant, LetThrough
	// those of them let through (Tally.Refused).
	Refused, LetThrough int64
}

// Add adds u's counts to t's.
func (t *Tally) Add(u Tally) {
	for k, v := range u.Kinds {
		if t.Kinds == nil {
			t.Kinds = map[string]OpCounts{}
		}
		n := t.Kinds[k]
		n.Stricter += v.Stricter
		n.Passed += v.Passed
		n.Refused += v.Refused
		n.LetThrough += v.LetThrough
		t.Kinds[k] = n
	}
	for k, v := range u.Stricter {
		if t.Stricter == nil {
			t.Stricter = map[string]int64{}
		}
		t.Stricter[k] += v
	}
	for k, ex := range u.StricterExamples {
		if t.StricterExamples == nil {
			t.StricterExamples = map[string]string{}
		}
		if t.StricterSaid == nil {
			t.StricterSaid = map[string]string{}
		}
		t.StricterExamples[k], t.StricterSaid[k] = leastWithWords(t.StricterExamples[k], t.StricterSaid[k], ex, u.StricterSaid[k])
	}
	t.SkippedLines += u.SkippedLines
	t.Passed += u.Passed
	t.Refused += u.Refused
	t.LetThrough += u.LetThrough
	t.Whole += u.Whole
	t.Filled += u.Filled
	t.WholeExample = leastExample(t.WholeExample, u.WholeExample)
	t.CountsPassed = t.CountsPassed || u.CountsPassed
	t.Stale += u.Stale
	t.Cached += u.Cached
	t.Isolated = t.Isolated || u.Isolated
	t.Modelled += u.Modelled
	t.Cleaned += u.Cleaned
	t.Unknown += u.Unknown
	t.Said += u.Said
	t.Landed += u.Landed
	t.Parted += u.Parted
	t.Bare += u.Bare
	t.Numbered += u.Numbered
	t.Kept += u.Kept
	t.Late += u.Late
	t.LateExample = leastExample(t.LateExample, u.LateExample)
	t.LineMoved += u.LineMoved
}
