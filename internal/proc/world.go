package proc

import (
	"encoding/json"
	"fmt"
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
)

// worldServer answers a child's world requests.
type worldServer interface {
	serve(m *proto.Message) (*proto.Message, error)
}

// world answers world requests from the scenario's core.World, call for
// call: SPEC §12's table is §1's, so the journal records what the child
// did exactly as it records an in-process sandbox.
type world struct{ w core.World }

func (s world) serve(m *proto.Message) (*proto.Message, error) {
	var p proto.WorldParams
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, fmt.Errorf("params that do not read: %v", err)
		}
	}
	if len(m.ID) == 0 {
		return nil, fmt.Errorf("a world request without an id")
	}
	var a proto.Answer
	absent := func(v string, ok bool) *proto.Bytes {
		if !ok {
			a.Absent = true
			return nil
		}
		b := proto.Bytes(v)
		return &b
	}
	var result any = &a
	switch m.Method {
	case "world/read":
		a.Data = absent(s.w.Read(string(p.Path)))
	case "world/write":
		s.w.Write(string(p.Path), string(p.Data))
		result = struct{}{}
	case "world/resolve":
		a.Addr = s.w.Resolve(string(p.Host)).String()
	case "world/fetch":
		addr, err := netip.ParseAddr(p.Addr)
		if err != nil {
			return nil, fmt.Errorf("addr %q is not an IP address", p.Addr)
		}
		a.Body = absent(s.w.Fetch(string(p.Host), addr, string(p.Path)))
	case "world/call":
		a.Output = absent(s.w.Call(string(p.Name), string(p.Input)))
	case "world/realpath":
		a.Path = absent(s.w.Realpath(string(p.Path)))
	case "world/now":
		tick, ok := s.w.Now()
		result = proto.Tick{Tick: proto.Int(tick), Past: !ok}
	default:
		return nil, fmt.Errorf("an unknown world request %q", m.Method)
	}
	// A child that floods its world is stopped at the request that passed
	// the harness's per-op cap, not at the end of its op: the world keeps
	// nothing past the cap, but the child's messages still cost memory.
	if c, ok := s.w.(interface{ OpOverCap() error }); ok {
		if err := c.OpOverCap(); err != nil {
			return nil, err
		}
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	return &proto.Message{ID: m.ID, Result: raw}, nil
}
