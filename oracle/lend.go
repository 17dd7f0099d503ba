package oracle

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// The harness (campaign, finding pipeline, minimizer, replay, fuzz
// targets) needs more of the oracle than its public API offers: feeds of
// cases on one worker goroutine, checks with no hang bound, step reports,
// prepared worlds, the model's predictions. Package internal/judge offers
// those; it reaches them through the engine lent here.
func init() {
	engine.Lend(&engine.Engine[Finding, Coverage]{
		CheckFeed:   checkFeed,
		CheckInline: func(f core.Factory, c engine.Case, cov *Coverage) []Finding { return checkInline(f, caseOf(c), cov) },
		Watch: func(f core.Factory, c engine.Case, cov *Coverage) engine.Run[Finding] {
			return watchWorld(f, c.Grant, c.Scenario.World, cov)
		},
		PrepareWorld: func(ws scenario.WorldSpec) engine.PreparedWorld { return prepareWorld(ws) },
		Expected:     func(c engine.Case) []core.Result { return expected(caseOf(c)) },
		FormatOp:     formatOp,
		QuoteData:    quoteData,
	})
}

// checkFeed judges the cases next hands out, one after another on a
// Checker's worker goroutine, and hands each verdict to judged, until next
// says there is no more.
func checkFeed(f core.Factory, opt engine.Options, next func() (engine.Case, core.Factory, bool), judged func(engine.Case, []Finding), cov *Coverage) {
	k := newChecker(f, Options{Timeout: opt.Timeout, StartTimeout: opt.StartTimeout}, opt.Observe)
	defer k.Close()
	k.checkAll(&funcFeed{next: next, judged: judged}, cov)
}

// funcFeed is the caseFeed of checkFeed. Next and Judged alternate, so the
// case Judged hears of is the one Next handed out last.
type funcFeed struct {
	next   func() (engine.Case, core.Factory, bool)
	judged func(engine.Case, []Finding)
	last   engine.Case
}

func (f *funcFeed) Next() (checkCase, core.Factory, bool) {
	c, fac, ok := f.next()
	f.last = c
	return caseOf(c), fac, ok
}

func (f *funcFeed) Judged(_ checkCase, fs []Finding) { f.judged(f.last, fs) }
