package oracle

import "sync/atomic"

// progressCounter tells Check's watchdog which op a scenario is on. A nil
// *progressCounter ignores stores, so CheckInline pays nothing.
type progressCounter struct{ step atomic.Int64 }

func (p *progressCounter) store(step int) {
	if p != nil {
		p.step.Store(int64(step))
	}
}

func (p *progressCounter) load() int { return int(p.step.Load()) }
