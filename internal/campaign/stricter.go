package campaign

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// stricterScenarios keeps, by reason, the scenario of the lowest check in
// which a real sandbox refused an op that the model allows (SPEC §14,
// stricter): the campaign writes each, so that a user can replay what the
// summary only names by its op. The lowest check rather than the first
// judged, so that the file does not depend on the workers.
type stricterScenarios struct {
	mu sync.Mutex
	by map[string]stricterScenario
}

type stricterScenario struct {
	check int64
	sc    *scenario.Scenario
}

// offer keeps a copy of sc for reason when check is lower than the one
// kept.
func (k *stricterScenarios) offer(reason string, check int64, sc *scenario.Scenario) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if kept, ok := k.by[reason]; ok && kept.check <= check {
		return
	}
	if k.by == nil {
		k.by = map[string]stricterScenario{}
	}
	k.by[reason] = stricterScenario{check, sc.Clone()}
}

// noteStricter offers the check just judged for every reason whose count
// the worker's session raised during it.
func (f *feed) noteStricter(sc *scenario.Scenario) {
	t := f.tally()
	for reason, n := range t.Stricter {
		if n > f.seenStricter[reason] {
			f.stricter.offer(reason, f.i, sc)
		}
	}
	f.seenStricter = t.Stricter
}

// writeStricter writes the kept scenarios to the sink's directory, the
// reasons in order, and returns their paths by reason; counts are the
// campaign's stricter ops by reason. Nothing is written without a
// directory.
func (s *sink) writeStricter(k *stricterScenarios, counts map[string]int64) (map[string]string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s.out == "" || len(k.by) == 0 {
		return nil, nil
	}
	paths := map[string]string{}
	for _, reason := range slices.Sorted(maps.Keys(k.by)) {
		kept := k.by[reason]
		path, err := s.as.WriteStricter(s.out, reason, fmt.Sprintf("seed %d, check %d", s.seed, kept.check), counts[reason], kept.sc)
		if err != nil {
			return paths, fmt.Errorf("writing a stricter op's scenario: %w", err)
		}
		paths[reason] = path
	}
	return paths, nil
}
