package proc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestWorldRequestOverTheOpCap: the world request that takes an op past
// the per-op cap is refused at once, with an error naming the cap; the
// requests before it are served.
func TestWorldRequestOverTheOpCap(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{})
	w.BeginOp(core.Op{}, 1000)
	s := world{w: w}
	write := func(n int) error {
		params, _ := json.Marshal(map[string]string{"path": "/work/x", "data": strings.Repeat("a", n)})
		_, err := s.serve(&proto.Message{ID: proto.IntID(1), Method: "world/write", Params: params})
		return err
	}
	if err := write(100); err != nil {
		t.Fatalf("a write within the cap: %v", err)
	}
	err := write(2000)
	if err == nil || !strings.Contains(err.Error(), "over the per-op cap of 1000 bytes") {
		t.Fatalf("a write past the cap: got %v, want an error naming the cap", err)
	}
}
