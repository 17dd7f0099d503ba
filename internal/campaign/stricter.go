package campaign

import (
	"fmt"
	"maps"
	"slices"
	"sync"

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
	said  string             // the words it was refused in ("" for none)
}

// offer keeps sc cut after its step at (0-based) for reason, with the
// words the op was refused in, when check is lower than the one kept.
func (k *stricterScenarios) offer(reason string, check int64, sc *scenario.Scenario, at int, said string) {
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
	k.by[reason] = stricterScenario{check, cut, judge.FormatOp(cut.Steps[at].Op), said}
}

// noteStricter offers, for each reason noted in the check just judged,
// its scenario cut after the op, when no finding came at or before it.
func (f *feed) noteStricter(sc *scenario.Scenario, fs []oracle.Finding) {
	marks, _ := f.watch.Marks()
	said := f.watch.Said()
	first := map[string]int{}
	for at, reason := range marks {
		if was, ok := first[reason]; !ok || at < was {
			first[reason] = at
		}
	}
	for reason, at := range first {
		if at < len(sc.Steps) && !slices.ContainsFunc(fs, func(fd oracle.Finding) bool { return fd.Step <= at+1 }) {
			f.stricter.offer(reason, f.i, sc, at, said[at])
		}
	}
}

// writeStricter writes the kept scenarios to the sink's directory, the
// reasons in order, and returns their paths and ops, each with the words
// it was refused in, by reason; counts are
// the campaign's stricter ops by reason. Nothing is written without a
// directory.
func (s *sink) writeStricter(k *stricterScenarios, counts map[string]int64) (paths, ops map[string]string, said map[string]string, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s.out == "" || len(k.by) == 0 {
		return nil, nil, nil, nil
	}
	paths, ops, said = map[string]string{}, map[string]string{}, map[string]string{}
	for _, reason := range slices.Sorted(maps.Keys(k.by)) {
		kept := k.by[reason]
		path, err := s.as.WriteStricter(s.out, reason, fmt.Sprintf("seed %d, check %d", s.seed, kept.check), counts[reason], kept.sc)
		if err != nil {
			return paths, ops, said, fmt.Errorf("writing a stricter op's scenario: %w", err)
		}
		paths[reason], ops[reason], said[reason] = path, kept.op, kept.said
	}
	return paths, ops, said, nil
}
