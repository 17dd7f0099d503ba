package oracle

import "slices"

// ID names an invariant of SPEC §8. The order of the constants is the
// registry's order, which reports follow.
type ID uint8

// The invariants of SPEC §8.
const (
	NoEffectOnDenial ID = iota
	Confinement
	NoInternalEgress
	HaltLatched
	ChargeBeforeDispatch
	OutputBounded
	VerdictMatchesModel
	ReplayDeterministic
	GrantImmutable
	Total

	// numInvariants is one past the last ID; arrays indexed by ID use it.
	numInvariants
)

// Invariant is one entry of the catalogue: its stable ID, what it demands,
// and whether it is judged after every op or once after a scenario.
type Invariant struct {
	ID        ID
	Name      string // the SPEC's stable ID, e.g. "no-effect-on-denial"
	Statement string // one line: when it holds
	PerStep   bool   // judged after every op (else after the whole run)
}

var catalogue = [numInvariants]Invariant{
	{NoEffectOnDenial, "no-effect-on-denial", "a denial adds nothing to the journal (a denial on the resolved path keeps its realpath entry) and changes no VFS content; a max_output_bytes halt adds only the effect that produced the bytes (a fetch's: resolves and fetches, judged by confinement and no-internal-egress) and returns no data", true},
	{Confinement, "confinement", "every journal entry is authorized by the grant: reads and writes of the path really reached, under their roots without traversal; realpaths of a path that passed its op's allow-list; resolves and fetches of granted hosts; calls of granted tools", true},
	{NoInternalEgress, "no-internal-egress", "no fetch goes to an internal address; each fetch uses the address the last resolve of its host before it, in the same op, answered; and a host fetched is not looked up again before a fetch used its last answer, nor more often than it is fetched, when its lookups answered more than one address", true},
	{HaltLatched, "halt-latched", "after the first hard result every result is that same hard kind, and usage, clock reads and the journal stop", true},
	{ChargeBeforeDispatch, "charge-before-dispatch", "every op past the halt gate is counted, and op max_ops+1 halts max_ops whatever came before", true},
	{OutputBounded, "output-bounded", "the bytes returned in data never total more than max_output_bytes", true},
	{VerdictMatchesModel, "verdict-matches-model", "each result (kind, hard, data) and the usage after it (ops, wall, output) equal those of an independent model of SPEC §5, and an allowed write leaves its data in the file the model writes", true},
	{ReplayDeterministic, "replay-deterministic", "replaying the scenario gives an identical trace: results, usage, journal", false},
	{GrantImmutable, "grant-immutable", "the grant reads the same after the run as before, whatever was done to values it handed out", false},
	{Total, "total", "every op yields a result: no panic, no hang, in the run or in its replay", true},
}

// Invariants returns the catalogue in its fixed order, as a copy: what a
// caller does to it changes nothing of the oracle's.
func Invariants() []Invariant { return slices.Clone(catalogue[:]) }

// String returns the invariant's stable ID, such as "confinement".
func (id ID) String() string {
	if id < numInvariants {
		return catalogue[id].Name
	}
	return "unknown-invariant"
}
