package campaign

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// stricterScenarios keeps, by reason, a scenario in which a real sandbox
// refused an op that the model allows (SPEC §14, stricter): that of the
// lowest check whose op so refused came before any finding of the check,
// cut after that op, so that its file replays the refusal and nothing
// else, and the campaign writes it for the user to replay what the
// summary only names. The lowest check rather than the first judged, so
// that the file does not depend on the workers.
type stricterScenarios struct {
	mu sync.Mutex
	by map[string]stricterScenario
}

type stricterScenario struct {
	check int64
	sc    *scenario.Scenario // cut after op
	op    string             // the op refused, as a scenario writes it
}

// offer keeps sc cut after its step at (0-based) for reason, when check
// is lower than the one kept.
func (k *stricterScenarios) offer(reason string, check int64, sc *scenario.Scenario, at int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if kept, ok := k.by[reason]; ok && kept.check <= check {
		return
	}
	if k.by == nil {
		k.by = map[string]stricterScenario{}
	}
	cut := sc.Clone()
	cut.Steps = cut.Steps[:at+1]
	k.by[reason] = stricterScenario{check, cut, judge.FormatOp(cut.Steps[at].Op)}
}

// stricterOps notes, for the check under way, the first op each stricter
// reason was counted at, by its place in the check's run: the factory of
// a check of a counting target wraps each sandbox so.
type stricterOps struct {
	mu    sync.Mutex
	tally func() door.Tally
	first map[string]int
}

// factory wraps f so that its sandboxes note their stricter ops.
func (s *stricterOps) factory(f core.Factory) core.Factory {
	return func(g core.Grant, w core.World) (core.Sandbox, error) {
		sb, err := f(g, w)
		if err != nil {
			return nil, err
		}
		return &noting{Sandbox: sb, s: s}, nil
	}
}

// reset forgets the ops of the check before.
func (s *stricterOps) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.first)
}

// noted returns the first op of each reason noted in the check.
func (s *stricterOps) noted() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.first)
}

// noting is a sandbox whose stricter ops stricterOps notes: those during
// which its session's count of a reason grew (only a check's run counts,
// not its replay).
type noting struct {
	core.Sandbox
	s *stricterOps
	n int // ops run
}

func (sb *noting) Run(op core.Op) core.Result {
	before := sb.s.tally().Stricter
	r := sb.Sandbox.Run(op)
	for reason, n := range sb.s.tally().Stricter {
		if n > before[reason] {
			sb.s.mu.Lock()
			if _, seen := sb.s.first[reason]; !seen {
				if sb.s.first == nil {
					sb.s.first = map[string]int{}
				}
				sb.s.first[reason] = sb.n
			}
			sb.s.mu.Unlock()
		}
	}
	sb.n++
	return r
}

// Close closes the sandbox it wraps, when that is an io.Closer: the
// oracle closes what it built.
func (sb *noting) Close() error {
	if c, ok := sb.Sandbox.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// noteStricter offers, for each reason noted in the check just judged,
// its scenario cut after the op, when no finding came at or before it.
func (f *feed) noteStricter(sc *scenario.Scenario, fs []oracle.Finding) {
	for reason, at := range f.stricterOps.noted() {
		if at < len(sc.Steps) && !slices.ContainsFunc(fs, func(fd oracle.Finding) bool { return fd.Step <= at+1 }) {
			f.stricter.offer(reason, f.i, sc, at)
		}
	}
}

// writeStricter writes the kept scenarios to the sink's directory, the
// reasons in order, and returns their paths and ops by reason; counts are
// the campaign's stricter ops by reason. Nothing is written without a
// directory.
func (s *sink) writeStricter(k *stricterScenarios, counts map[string]int64) (paths, ops map[string]string, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s.out == "" || len(k.by) == 0 {
		return nil, nil, nil
	}
	paths, ops = map[string]string{}, map[string]string{}
	for _, reason := range slices.Sorted(maps.Keys(k.by)) {
		kept := k.by[reason]
		path, err := s.as.WriteStricter(s.out, reason, fmt.Sprintf("seed %d, check %d", s.seed, kept.check), counts[reason], kept.sc)
		if err != nil {
			return paths, ops, fmt.Errorf("writing a stricter op's scenario: %w", err)
		}
		paths[reason], ops[reason] = path, kept.op
	}
	return paths, ops, nil
}
