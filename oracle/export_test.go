package oracle

import (
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// WorldAnswers is the model's world as the external differential test
// (differential_test.go, package oracle_test, which may import generators)
// drives it: SPEC §1's calls, without a journal.
type WorldAnswers interface {
	Read(clean string) (string, bool) // clean is Canonical(path)
	Write(clean, data string)
	Realpath(clean string) (string, bool) // clean is Canonical(path)
	Resolve(host string) netip.Addr
	Fetch(host, path string) (string, bool)
	Call(name, input string) (string, bool)
	Now() (tick int64, ok bool) // ok=false past 2^63−1, as core.Clock
}

// NewModelWorld starts the model's world from ws.
func NewModelWorld(ws scenario.WorldSpec) WorldAnswers {
	return exportedWorld{newModelWorld(newModelBase(ws))}
}

type exportedWorld struct{ w *modelWorld }

func (e exportedWorld) Read(c string) (string, bool)     { return e.w.read(c) }
func (e exportedWorld) Write(c, d string)                { e.w.write(c, d) }
func (e exportedWorld) Realpath(c string) (string, bool) { return e.w.realpath(c) }
func (e exportedWorld) Resolve(h string) netip.Addr      { return e.w.resolve(h) }
func (e exportedWorld) Fetch(h, p string) (string, bool) { return e.w.fetch(h, p) }
func (e exportedWorld) Call(n, in string) (string, bool) { return e.w.call(n, in) }
func (e exportedWorld) Now() (int64, bool)               { t, past := e.w.clock.now(); return t, !past }

// BubbleGoroutines counts the goroutines of the calling synctest bubble,
// the caller among them. runtime.NumGoroutine counts the whole process,
// where another test's goroutines, or the runtime's, come and go.
func BubbleGoroutines() int { return bubbleGoroutines() }

func InternalRange(a netip.Addr) string { return internalRange(a) }
