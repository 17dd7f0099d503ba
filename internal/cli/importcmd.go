package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzdecode"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzfile"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// importLayouts maps --layout values to fuzz layouts; "auto" is 0.
var importLayouts = map[string]fuzzfile.Layout{
	"auto": 0, "go": fuzzfile.LayoutGoFuzz, "libfuzzer": fuzzfile.LayoutLibFuzzer, "raw": fuzzfile.LayoutRaw,
}

func runImport(e *env, args []string) int {
	fs := newFlags(e, "import", "[--sut NAME [--profile NAME|FILE]] [--timeout D] [--start-timeout D] [--tree-dir DIR] [--out DIR] [--layout auto|go|libfuzzer|raw] FILE...", `
Turn inputs of the FuzzScenario fuzz target into minimized, canonical .sbx
files. Each FILE is decoded as FuzzScenario decodes it, judged by the oracle on
the sandbox under test, and, when it violates an invariant, minimized for the
first one violated, given the oracle model's results as expectations, annotated
with where it came from, and written atomically to --out (by default under
the user's cache directory, never the working directory: see --out) as
<invariant>-<hash>.sbx, each path printed on stdout.

Three layouts are read (--layout auto tells go from libfuzzer by the first line):
  go         a go test -fuzz corpus entry: "go test fuzz v1", then one line
             []byte("...") (or string("...")), as go test -fuzz writes to
             fuzz/testdata/fuzz/FuzzScenario/ when it finds something;
  libfuzzer  a crash file of the libFuzzer build (ClusterFuzzLite, OSS-Fuzz,
             fuzz/libfuzzer.sh): go-118-fuzz-build hands a []byte target the
             bytes after a 4-byte big-endian length n (n == 0 means 30; an n
             that is not the number of bytes left is taken modulo it), so the
             file is that prefix and the input;
  raw        the bytes the target received, as they are.

--sut defaults to $SBXFUZZ_SUT, the variable the fuzz targets read, else the
reference; a real sandbox (osroot, mcp:, proxy:) is asked what run would ask it,
the ops its adapter cannot express left out. Exit 1 when a finding was
imported, 0 when no input reproduces anything on the sandbox (each such input
is named on stderr), 2 for a file that is not an input, 3 on SIGINT, SIGTERM
or SIGHUP (the findings written so far are kept).`)
	sutName := fs.String("sut", defaultSUT(e), sutHelp)
	treeDirFlag(e, fs)
	out := outFlag(fs)
	layoutName := fs.String("layout", "auto", "input layout: auto, go, libfuzzer or raw")
	timeout := timeoutFlag(e, fs)
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if !checkTimeout(e, *timeout) {
		return ExitUsage
	}
	layout, ok := importLayouts[*layoutName]
	if !ok {
		return errorf(e, "--layout %q: want auto, go, libfuzzer or raw", *layoutName)
	}
	if fs.NArg() == 0 {
		return errorf(e, "import: want at least one FILE (try 'sbxfuzz import -h')")
	}
	target, err := e.target(*sutName)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	if *out, err = e.outDir(fs, *out, *sutName, target.Flags); err != nil {
		return errorf(e, "%v", err)
	}
	if err := fsutil.CheckOutDir(*out); err != nil {
		return errorf(e, "--out: %v", err)
	}
	factory, end, err := startSession(e, target)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	defer end()
	im := &importer{e: e, target: target, out: *out, layout: layout,
		p: &finding.Pipeline{Factory: factory, Start: target.Start, SUT: *sutName, Flags: target.Flags, Program: e.program, Timeout: *timeout, StartTimeout: e.startTimeout, Adapt: target.Adapt,
			Class: campaign.MinimizedClass}}
	status := ExitOK
	for _, name := range fs.Args() {
		status = max(status, im.importFile(name)) // 2 over 1 over 0
	}
	return status
}

// defaultSUT is $SBXFUZZ_SUT, or the reference when it is unset.
func defaultSUT(e *env) string {
	if s := e.getenv(sut.EnvVar); s != "" {
		return s
	}
	return sut.Reference
}

// importer imports fuzz inputs for one sandbox under test.
type importer struct {
	e      *env
	target sut.Target // what a decoded scenario is narrowed for, as a campaign narrows its own
	p      *finding.Pipeline
	out    string
	layout fuzzfile.Layout
}

// importFile imports one file and returns its exit status: ExitFinding
// when it wrote a finding, ExitOK when the input reproduces nothing (or
// its finding is flaky: written, marked so),
// ExitUsage when the file is not an input or cannot be written.
func (im *importer) importFile(name string) int {
	data, err := readData(name)
	if err != nil {
		return errorf(im.e, "%v", err)
	}
	in, layout, err := fuzzfile.ReadInput(data, im.layout)
	if err != nil {
		return errorf(im.e, "%s: %v", name, err)
	}
	d := fuzzdecode.DecodeLabelled(in)
	n := im.target.Narrow(d.Scenario)
	if n.Scenario == nil {
		fmt.Fprintf(im.e.stderr, "sbxfuzz import: %s: reproduces nothing on %s, which can express none of it (%s input, %d bytes, decoded in %s mode to %d ops)\n",
			inert(name), im.p.SUT, layout, len(in), d.Mode, len(d.Scenario.Steps))
		return ExitOK
	}
	findings, err := oracle.Check(im.p.Factory, n.Scenario, nil, oracle.Options{Timeout: im.p.Timeout, StartTimeout: im.p.StartTimeout})
	if err != nil {
		return errorf(im.e, "%s: %v", name, err) // Decode validates grants: not expected
	}
	if len(findings) == 0 {
		fmt.Fprintf(im.e.stderr, "sbxfuzz import: %s: reproduces nothing on %s (%s input, %d bytes, decoded in %s mode to %d ops)\n",
			inert(name), im.p.SUT, layout, len(in), d.Mode, len(d.Scenario.Steps))
		return ExitOK
	}
	// The base name only: the header is committed, and a path would be the
	// importing machine's (a crash file's name is its content hash anyway).
	origin := fmt.Sprintf("imported from %s (%s input, %d bytes, decoded in %s mode)", filepath.Base(name), layout, len(in), d.Mode)
	if len(n.Skipped) > 0 {
		origin += fmt.Sprintf("; %d ops %s cannot express left out", len(n.Skipped), im.p.SUT)
	}
	f := im.p.Process(n.Scenario, findings[0], origin)
	path, err := im.p.Write(im.out, f)
	if err != nil {
		return errorf(im.e, "%v", err)
	}
	fmt.Fprintf(im.e.stdout, "%s: %s (%d ops minimized to %d)\n  %s\n", path, f.Invariant, len(f.Original.Steps), len(f.Minimized.Steps), inert(f.Explanation()))
	if others := otherInvariants(findings); others != "" {
		fmt.Fprintf(im.e.stderr, "sbxfuzz import: %s: also violates %s (imported for %s only)\n", inert(name), others, f.Invariant)
	}
	if f.Flaky || f.Stateful {
		return ExitOK // written, marked flaky: not a finding on its own
	}
	return ExitFinding
}

// otherInvariants lists the distinct invariants of findings after the
// first one's, comma-separated.
func otherInvariants(findings []oracle.Finding) string {
	seen := map[oracle.ID]bool{findings[0].Invariant: true}
	var ids []string
	for _, f := range findings[1:] {
		if !seen[f.Invariant] {
			seen[f.Invariant] = true
			ids = append(ids, f.Invariant.String())
		}
	}
	return strings.Join(ids, ", ")
}
