package scenario_test

import (
	"os"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestWorkedTraceRuns runs the worked trace of SPEC §10 on the reference
// sandbox, in the world its header describes: every expectation must hold.
func TestWorkedTraceRuns(t *testing.T) {
	src, err := os.ReadFile("testdata/worked_trace.sbx")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse("worked_trace.sbx", src)
	if err != nil {
		t.Fatal(err)
	}
	g, err := core.NewGrant(s.Grant)
	if err != nil {
		t.Fatal(err)
	}
	sb := core.NewReference(g, refworld.New(s.World))
	for _, st := range s.Steps {
		r := sb.Run(st.Op)
		e := st.Expect
		if r.Kind != e.Kind || e.HasData && r.Data != e.Data {
			t.Errorf("line %d: %v gave %v %q, want %v %q", st.Line, st.Op, r.Kind, r.Data, e.Kind, e.Data)
		}
	}
}
