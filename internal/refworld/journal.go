package refworld

import (
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/internal/token"
)

// Call names the kind of a journal entry.
type Call uint8

// The world calls, in the SPEC's order. The zero Call is no call.
const (
	CallRead     Call = iota + 1 // read PATH
	CallWrite                    // write PATH DATA
	CallRealpath                 // realpath PATH -> RESOLVED
	CallResolve                  // resolve HOST -> ADDR
	CallFetch                    // fetch HOST ADDR PATH
	CallTool                     // call NAME INPUT
)

var callNames = [...]string{"", "read", "write", "realpath", "resolve", "fetch", "call"}

// String returns the journal word for c: "read", "write", "realpath",
// "resolve", "fetch" or "call".
func (c Call) String() string {
	if int(c) < len(callNames) {
		return callNames[c]
	}
	return "call?"
}

// Entry is one journaled world call. Name and Arg hold the arguments exactly
// as the sandbox passed them, uncleaned: the oracle judges what was asked,
// not what the world made of it. The world's answer is kept only where the
// oracle needs it: the address a resolve answered and the path a realpath
// answered. Entries are comparable with ==.
type Entry struct {
	Call Call
	Name string     // read/write/realpath: path; resolve/fetch: host; call: tool name
	Arg  string     // write: data; realpath: the answer, "" for none (a loop); fetch: path; call: input
	Addr netip.Addr // resolve: the answer; fetch: the address used
}

// String returns the entry as SPEC §1 writes it, with tokens quoted where
// needed: `read /work/a`, `realpath /work//a -> /work/a`,
// `resolve api.internal -> 203.0.113.1`. A realpath that found a loop, and
// so answered no path, prints its answer as the empty token `""` (a
// resolved path is never empty: Clean gives ".").
func (e Entry) String() string { return string(e.appendTo(nil)) }

// appendTo appends e.String() to b.
func (e Entry) appendTo(b []byte) []byte {
	b = append(b, e.Call.String()...)
	b = append(b, ' ')
	b = token.AppendFormat(b, e.Name)
	switch e.Call {
	case CallWrite, CallTool:
		b = append(b, ' ')
		b = token.AppendFormat(b, e.Arg)
	case CallRealpath:
		b = append(b, " -> "...)
		b = token.AppendFormat(b, e.Arg)
	case CallResolve:
		b = append(b, " -> "...)
		b = e.Addr.AppendTo(b)
	case CallFetch:
		b = append(b, ' ')
		b = e.Addr.AppendTo(b)
		b = append(b, ' ')
		b = token.AppendFormat(b, e.Arg)
	}
	return b
}
