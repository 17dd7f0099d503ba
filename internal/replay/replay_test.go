package replay

import (
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestUnmetQuotesDataCut: an unmet expectation on megabytes of data says
// so in a line, the data cut after judge.MaxQuoted bytes with its length.
func TestUnmetQuotesDataCut(t *testing.T) {
	big := strings.Repeat("y", 3<<20)
	src := "grant fs_read /work/\nbudget output 100000000\nfile /work/f " + big + "\nfs_read /work/f => ok " + strings.Repeat("z", 3<<20) + "\n"
	sc, err := scenario.Parse("big.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run("big.sbx", sc, core.ReferenceFactory, nil)
	if err != nil {
		t.Fatal(err)
	}
	unmet := out.Unmet()
	if len(unmet) != 1 {
		t.Fatalf("%d unmet expectations, want 1", len(unmet))
	}
	if u := unmet[0].Unmet; len(u) > 2048 || strings.Count(u, "(3145728 bytes in all)") != 2 {
		t.Errorf("the unmet expectation says %d bytes: %.700s", len(u), u)
	}
	if got := Describe(core.OK, "", true); got != `ok ""` {
		t.Errorf("Describe of empty data = %s", got)
	}
}

// failing panics on a read of /work/boom: an op that gives no result.
type failing struct{ *core.Reference }

func (f failing) Run(op core.Op) core.Result {
	if op.Kind == core.OpRead && op.Args[0] == "/work/boom" {
		panic("boom")
	}
	return f.Reference.Run(op)
}

// TestFailedStepShown: the op of a total finding, which gives no result,
// is the last step of the outcome, marked failed and its expectation
// unmet, so that the step table names it.
func TestFailedStepShown(t *testing.T) {
	src := "grant fs_read /work/\nfile /work/a x\nfs_read /work/a => ok x\nfs_read /work/boom => not_found\nfs_read /work/a\n"
	sc, err := scenario.Parse("t.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	factory := func(g core.Grant, w core.World) (core.Sandbox, error) { return failing{core.NewReference(g, w)}, nil }
	out, err := Run("t.sbx", sc, factory, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Steps) != 2 || out.Steps[0].Failed || !out.Steps[1].Failed || out.Steps[1].Line != 4 || out.Steps[1].Unmet == "" {
		t.Fatalf("steps %+v, want the read of /work/a, then the failed read of /work/boom with its expectation unmet", out.Steps)
	}
	if rs := out.Report().Steps[1]; rs.Op != "fs_read /work/boom" || rs.Result != "no result (total)" || rs.Kind != "" {
		t.Errorf("the failed step reads %+v", rs)
	}
}

// prefixLeak lets a read through wherever its path starts with /work,
// /workshop/ included, as a raw prefix check does, charging the op as the
// reference does, and the bytes it leaks to its output.
type prefixLeak struct {
	*core.Reference
	w      core.World
	leaked *int64
}

func (p prefixLeak) Run(op core.Op) core.Result {
	r := p.Reference.Run(op)
	if op.Kind == core.OpRead && strings.HasPrefix(op.Args[0], "/workshop/") {
		data, _ := p.w.Read(op.Args[0])
		*p.leaked += int64(len(data))
		return core.Result{Kind: core.OK, Data: data}
	}
	return r
}

func (p prefixLeak) Usage() core.Usage {
	u := p.Reference.Usage()
	u.Output += *p.leaked
	return u
}

// TestStepsNameTheirViolations: every step names the invariants it
// violated, a later violation of an invariant as well as its first, which
// alone is a finding; but not a usage that differs from the model's only
// because it parted from it at an earlier step.
func TestStepsNameTheirViolations(t *testing.T) {
	src := "grant fs_read /work\nfile /workshop/a s\nfile /workshop/b t\nfile /work/c u\nfs_read /workshop/a\nfs_read /work/c\nfs_read /workshop/b\n"
	sc, err := scenario.Parse("t.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	factory := func(g core.Grant, w core.World) (core.Sandbox, error) {
		return prefixLeak{core.NewReference(g, w), w, new(int64)}, nil
	}
	out, err := Run("t.sbx", sc, factory, nil)
	if err != nil {
		t.Fatal(err)
	}
	var confined int
	for _, f := range out.Findings {
		if f.Invariant.String() == "confinement" {
			confined++
		}
	}
	if confined != 1 || len(out.Steps) != 3 {
		t.Fatalf("%d confinement findings over %d steps, want 1 over 3", confined, len(out.Steps))
	}
	if v := out.Steps[1].Violated; len(v) != 0 {
		t.Errorf("step 2, whose usage differs only as step 1 left it, names %v", v)
	}
	for i, s := range out.Steps {
		if i == 1 {
			continue
		}
		if !slices.Contains(s.Violated, "confinement") {
			t.Errorf("step %d names %v, want confinement among them", i+1, s.Violated)
		}
		if rs := out.Report().Steps[i]; !slices.Equal(rs.Violated, s.Violated) {
			t.Errorf("step %d reports %v, want %v", i+1, rs.Violated, s.Violated)
		}
	}
}
