package refworld

import (
	"fmt"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// entryBytes is what one journaled call costs against an op's cap besides
// the bytes of its arguments: an Entry's own memory, so that a flood of
// empty calls is bounded too.
const entryBytes = 64

// opBytes counts what the op under way has sent into a world, and keeps
// what else the world knows of it (BeginOp). The zero opBytes counts
// nothing: a world no harness limits keeps everything.
type opBytes struct {
	limit int64 // 0: no cap
	sent  int64
	start int    // the journal's length when the op began
	host  string // the op's host, a net_fetch's
	seq   int    // the op's number, counted by BeginOp (OpSeq)
}

// charge counts a journaled call whose arguments (and, for a realpath,
// answer) are n bytes, and reports whether it is within the cap.
func (o *opBytes) charge(n int) bool {
	if o.limit == 0 {
		return true
	}
	o.sent += int64(n) + entryBytes
	return o.sent <= o.limit
}

// BeginOp tells the world that op is the next op to run. It starts
// counting what op sends into the world — the bytes of every journaled
// call's arguments and of a realpath's answer, and entryBytes a call —
// against limit bytes; 0 turns the counting off. Once an op has sent
// more, the world keeps nothing more of it: its calls are answered as
// before but neither journaled nor stored, so that a sandbox that floods
// its world cannot exhaust the harness's memory. It also keeps the host of
// a net_fetch, for OpHost. The harness calls it before each op, and
// EndOp and then OpOverCap after.
func (w *World) BeginOp(op core.Op, limit int64) {
	w.op = opBytes{limit: max(limit, 0), start: len(w.journal), seq: w.op.seq + 1}
	if op.Kind == core.OpFetch && len(op.Args) > 0 {
		w.op.host = op.Args[0]
	}
}

// OnEndOp has EndOp call f at the end of each op, in the order they were
// given: an in-memory network journals there what a connection the op
// made, and left open, did (sbxnet). A world a harness renews (Renew)
// forgets them.
func (w *World) OnEndOp(f func()) { w.endOp = append(w.endOp, f) }

// EndOp tells the world that the op BeginOp began has returned: the
// harness calls it before it reads the op's journal.
func (w *World) EndOp() {
	for _, f := range w.endOp {
		f()
	}
}

// OpHost is the host of the op under way when it is a net_fetch, else "":
// an in-memory network (package sbxnet) tells a request for the op's host,
// which an HTTP client may have had to spell otherwise ("[::1]" for ::1),
// from a request for another host.
func (w *World) OpHost() string { return w.op.host }

// OpJournal is the journal of the op under way: what it asked since
// BeginOp.
func (w *World) OpJournal() []Entry { return w.journal[min(w.op.start, len(w.journal)):] }

// OpSeq numbers the op under way, one more at each BeginOp: it tells an
// in-memory network's connection made in one op from one made in
// another, whatever either journaled.
func (w *World) OpSeq() int { return w.op.seq }

// ResolvedInOp reports whether the op under way has journaled a resolve
// of host, names compared as SPEC §6 looks them up (spec.LookupKey: a
// port dropped; a bracketed literal is another name, which may have a dns
// line of its own): an in-memory
// network journals the resolve of an IP literal a client dialled as it
// is, unless the sandbox asked for it, as the network namespace does
// (SPEC §14).
func (w *World) ResolvedInOp(host string) bool {
	h := spec.LookupKey(host)
	for _, e := range w.OpJournal() {
		if e.Call == CallResolve && spec.LookupKey(e.Name) == h {
			return true
		}
	}
	return false
}

// OpOverCap returns nil while the op under way is within the cap BeginOp
// set, else an error that says how much it sent and the cap:
// "wrote N bytes to the world, over the per-op cap of M bytes".
func (w *World) OpOverCap() error {
	if w.op.limit == 0 || w.op.sent <= w.op.limit {
		return nil
	}
	return &opCapError{Sent: w.op.sent, Cap: w.op.limit}
}

// opCapError is an op that sent more into its world than the cap the
// harness set (World.BeginOp).
type opCapError struct {
	Sent int64 // bytes counted when the op ended, or when it was asked
	Cap  int64
}

func (e *opCapError) Error() string {
	return fmt.Sprintf("wrote %d bytes to the world, over the per-op cap of %d bytes", e.Sent, e.Cap)
}
