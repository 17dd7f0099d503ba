//go:build unix

package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// shapesWorld is a scenario every correct case of testdata/wiremcp.py
// must pass: reads and writes inside its root, a prefix sibling and a link
// out refused, a file missing.
const shapesWorld = `grant fs_read /work/
grant fs_write /work/
file /work/a "one\ntwo\n"
file /workshop/secret "sibling secret"
file /etc/secret "top secret"
link /work/out /etc/secret

fs_read /work/a
fs_read /workshop/secret
fs_read /work/out
fs_read /work/missing
fs_write /work/b "new\r\n"
fs_read /work/b
fs_write /etc/secret y
`

// TestWireJudged judges, with the oracle, the scenario above on each
// correct case of testdata/wiremcp.py (none may be a finding) and the
// killer of its defect, testdata/logleak.sbx, on that case: a forbidden
// file sent in a log notification during the call was not looked at, a
// leak missed.
func TestWireJudged(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the MCP servers of these tests are Python scripts")
	}
	script, err := filepath.Abs("testdata/wiremcp.py")
	if err != nil {
		t.Fatal(err)
	}
	killer, err := os.ReadFile("testdata/logleak.sbx")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c, sbx string
		want   []string // the invariants it violates
	}{
		{"plain", shapesWorld, nil},
		{"notif", shapesWorld, nil},
		{"srvreq", shapesWorld, nil},
		{"order", shapesWorld, nil},
		{"paged", shapesWorld, nil},
		{"v2024", shapesWorld, nil},
		{"crlf", shapesWorld, nil},
		{"after", shapesWorld, nil},
		{"preinit", shapesWorld, nil},
		{"struct", shapesWorld, nil},
		{"bom", shapesWorld, nil},
		{"idfloat", shapesWorld, nil},
		{"idstr", shapesWorld, nil},
		{"heartbeat", shapesWorld, nil},
		{"nullnotif", shapesWorld, nil},
		{"lazytools", shapesWorld, nil},
		{"logleak", shapesWorld, []string{"no-effect-on-denial", "confinement"}},
		{"logleak", string(killer), []string{"no-effect-on-denial", "confinement"}}, // as logleak#01
	} {
		t.Run(tc.c, func(t *testing.T) {
			a, err := realsut.MCP(py + " " + script + " " + tc.c)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenario.Parse("t.sbx", []byte(tc.sbx))
			if err != nil {
				t.Fatal(err)
			}
			f, end, err := a.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer end()
			c, err := judge.NewCase(sc)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, fd := range judge.Check(f, c, nil, judge.Options{Timeout: 10 * time.Second}) {
				if !slices.Contains(got, fd.Invariant.String()) {
					got = append(got, fd.Invariant.String())
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}
