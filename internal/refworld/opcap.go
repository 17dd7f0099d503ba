package refworld

import "fmt"

// entryBytes is what one journaled call costs against an op's cap besides
// the bytes of its arguments: an Entry's own memory, so that a flood of
// empty calls is bounded too.
const entryBytes = 64

// opBytes counts what the op under way has sent into a world. The zero
// opBytes counts nothing: a world no harness limits keeps everything.
type opBytes struct {
	limit int64 // 0: no cap
	sent  int64
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

// LimitOp starts counting what the next op sends into the world — the
// bytes of every journaled call's arguments and of a realpath's answer,
// and entryBytes a call — against limit bytes; 0 turns the counting off.
// Once an op has sent more, the world keeps nothing more of it: its calls
// are answered as before but neither journaled nor stored, so that a
// sandbox that floods its world cannot exhaust the harness's memory. The
// harness calls it before each op and OpOverCap after.
func (w *World) LimitOp(limit int64) { w.op = opBytes{limit: max(limit, 0)} }

// OpOverCap returns nil while the op under way is within the cap LimitOp
// set, else an error that says how much it sent and the cap:
// "wrote N bytes to the world, over the per-op cap of M bytes".
func (w *World) OpOverCap() error {
	if w.op.limit == 0 || w.op.sent <= w.op.limit {
		return nil
	}
	return &opCapError{Sent: w.op.sent, Cap: w.op.limit}
}

// opCapError is an op that sent more into its world than the cap the
// harness set (World.LimitOp).
type opCapError struct {
	Sent int64 // bytes counted when the op ended, or when it was asked
	Cap  int64
}

func (e *opCapError) Error() string {
	return fmt.Sprintf("wrote %d bytes to the world, over the per-op cap of %d bytes", e.Sent, e.Cap)
}
