package minimize

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// blocksUntilEnded is the reference, except that each op waits until its
// session ends: a sandbox in a process that stopped answering.
type blocksUntilEnded struct {
	*core.Reference
	ended   chan struct{}
	blocked func()
}

func (b blocksUntilEnded) Run(op core.Op) core.Result {
	b.blocked()
	<-b.ended
	return b.Reference.Run(op)
}

// TestFreshEndsItsSessionAtStop: closing stop ends the session under way,
// which frees a judgement stuck in an op long before its op timeout;
// nothing more is built in it, and no session is started after.
func TestFreshEndsItsSessionAtStop(t *testing.T) {
	var started, ended, built atomic.Int64
	blocked := make(chan struct{})
	once := sync.OnceFunc(func() { close(blocked) })
	start := func() (core.Factory, func() error, error) {
		started.Add(1)
		done := make(chan struct{})
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			built.Add(1)
			return blocksUntilEnded{core.NewReference(g, w), done, once}, nil
		}
		return f, func() error { ended.Add(1); close(done); return nil }, nil
	}
	c := parse(t, noisy)
	stop := make(chan struct{})
	judge := Fresh(start, stop)
	returned := make(chan []oracle.Finding)
	go func() { returned <- judge(c, oracle.Options{Timeout: time.Hour}) }()
	<-blocked
	close(stop)
	select {
	case <-returned:
	case <-time.After(time.Minute): // only reached when the test fails: the op waits an hour
		t.Fatal("the judgement did not return once stop closed")
	}
	if fs := judge(c, oracle.Options{Timeout: time.Hour}); len(fs) > 0 { // stop closed: no session
		t.Errorf("a judgement after stop found %v", fs)
	}
	if started.Load() != 1 || ended.Load() != 1 || built.Load() != 1 {
		t.Errorf("%d sessions started, %d ended, %d sandboxes built; want 1, 1, and 1 (none once the session is ended)",
			started.Load(), ended.Load(), built.Load())
	}
}
