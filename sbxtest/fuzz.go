package sbxtest

import (
	"io/fs"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/corpus"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzdecode"
)

// Fuzz is a native fuzz target for sb, in one line:
//
//	func FuzzSandbox(f *testing.F) { sbxtest.Fuzz(f, sandbox) }
//
// It seeds f with every scenario of sbxfuzz's committed corpus, then
// decodes each input into a scenario (a grant, a world and hostile ops of
// every attack class; see CheckInput) and judges it with the full oracle.
// A failure prints the minimized reproducer.
func Fuzz(f *testing.F, sb Sandbox) {
	for _, seed := range seeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := CheckInput(sb, data); err != nil {
			t.Fatal(err)
		}
	})
}

// CheckInput is Fuzz's body: it decodes data into a scenario the way
// sbxfuzz's own FuzzScenario does — most first bytes pick one of 64
// prepared hostile grants and worlds and then ops of the attack classes the
// input names, 0xF8–0xFF a whole generated scenario, '#' .sbx text — and
// judges every invariant on it, each op bounded by sb.Timeout. It returns
// nil when every invariant holds, else a *Failure.
func CheckInput(sb Sandbox, data []byte) error {
	d := fuzzdecode.DecodeLabelled(data)
	fs, err := sb.check(d.Scenario)
	if err != nil {
		return err // not expected: decoded grants always validate
	}
	if len(fs) == 0 {
		return nil
	}
	return sb.fail(d.Scenario, fs, "a fuzz input decoded in "+d.Mode.String()+" mode")
}

// seeds are the committed corpus's scenarios as text inputs.
func seeds() [][]byte {
	var out [][]byte
	fs.WalkDir(corpus.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		text, err := fs.ReadFile(corpus.Files, p)
		if err != nil {
			return err
		}
		if seed, err := fuzzdecode.CompactSeed(p, text); err == nil {
			out = append(out, seed)
		}
		return nil
	})
	return out
}
