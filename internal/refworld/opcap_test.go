package refworld

import (
	"errors"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestBeginOp: within its cap an op's calls are journaled and stored; past
// it they are neither, while still answered, and OpOverCap says how much
// was sent against what cap. Without BeginOp, or after Renew, nothing is
// counted.
func TestBeginOp(t *testing.T) {
	tmpl := Prepare(scenario.WorldSpec{Files: []scenario.File{{Path: "/a", Data: "A"}}})
	w := tmpl.New()
	data := strings.Repeat("x", 1000)
	for range 5 {
		w.Write("/f", data) // no cap: all kept
	}
	if w.JournalLen() != 5 || w.OpOverCap() != nil {
		t.Fatalf("without a cap: %d entries, %v; want 5, nil", w.JournalLen(), w.OpOverCap())
	}
	w.BeginOp(core.Op{}, 2500)
	w.Write("/g", data) // 1002 + 64
	w.Write("/g", data) // 2132
	if w.JournalLen() != 7 || w.OpOverCap() != nil {
		t.Fatalf("within the cap: %d entries, %v; want 7, nil", w.JournalLen(), w.OpOverCap())
	}
	w.Write("/h", data) // 3198: over
	if d, ok := w.Read("/a"); !ok || d != "A" {
		t.Errorf("a read past the cap answered %q, %v; want what it answers within it", d, ok)
	}
	var capErr *opCapError
	if err := w.OpOverCap(); !errors.As(err, &capErr) || capErr.Cap != 2500 || capErr.Sent != 3198+2+64 ||
		err.Error() != "wrote 3264 bytes to the world, over the per-op cap of 2500 bytes" {
		t.Errorf("OpOverCap() = %v", err)
	}
	if _, ok := w.Lookup("/h"); ok || w.JournalLen() != 7 {
		t.Errorf("past the cap: /h stored %v, %d entries; want neither kept", ok, w.JournalLen())
	}
	w.BeginOp(core.Op{}, 0)
	if w.OpOverCap() != nil {
		t.Errorf("BeginOp with no cap left %v", w.OpOverCap())
	}
	w.BeginOp(core.Op{}, 10)
	w.Read("/a")
	tmpl.Renew(w)
	if w.OpOverCap() != nil {
		t.Errorf("Renew left %v", w.OpOverCap())
	}
}
