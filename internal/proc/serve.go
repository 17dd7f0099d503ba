package proc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
)

// Serve is the child's side of sbxfuzz/1 for a Go sandbox: it reads
// requests from r and writes to w, builds a sandbox with f over a world
// whose every call is a world request back to the harness, and returns
// nil after shutdown, or an error when the harness breaks the protocol or
// closes r — a line over proto.MaxLine included: never a panic. A panic of
// the sandbox itself is answered as an error object, which the harness
// takes for a total finding on that op, as it does in process. stricter
// lists the op kinds the sandbox declares, in its initialize answer, to
// refuse more of than the model allows (SPEC §12: "net_fetch").
func Serve(r io.Reader, w io.Writer, name string, f core.Factory, stricter ...string) error {
	out := bufio.NewWriterSize(w, 64<<10)
	s := &server{in: proto.NewReader(r), out: out, f: f, name: name, stricter: stricter}
	return s.loop()
}

type server struct {
	in       *proto.Reader
	out      *bufio.Writer
	f        core.Factory
	name     string
	stricter []string
	sb       core.Sandbox
	id       int64 // the last world request's id
	// handed are the lists the sandbox's last Grant handed out.
	handed [4][]string
}

func (s *server) loop() error {
	for {
		m, err := s.in.Read()
		if errors.Is(err, io.EOF) {
			return errors.New("the harness closed stdin without shutdown")
		}
		if err != nil {
			return err
		}
		if m.Method == "" || len(m.ID) == 0 {
			return fmt.Errorf("a message that is not a request: %.80s", describe(m))
		}
		result, rerr, fatal := s.dispatch(m)
		if fatal != nil {
			return fatal
		}
		resp := &proto.Message{ID: m.ID}
		if rerr != nil {
			resp.Error = &proto.Error{Code: -32000, Message: rerr.Error()}
		} else if resp.Result, err = json.Marshal(result); err != nil {
			return err
		}
		if err := s.send(resp); err != nil {
			return err
		}
		if m.Method == "shutdown" {
			return nil
		}
	}
}

// describe is m as the words of an error: its method, or its id.
func describe(m *proto.Message) string {
	if m.Method != "" {
		return "a notification of " + m.Method
	}
	return "a response with id " + m.ID.String()
}

// abort is what the world of a served sandbox panics with when the harness
// breaks the protocol in the middle of a call: neither the op nor the
// server can go on, and dispatch hands the error back to loop.
type abort struct{ err error }

// dispatch is handle, with a panic turned into words: an abort into the
// error that ends the server (fatal), the sandbox's own panic into the
// error answered to the request.
func (s *server) dispatch(m *proto.Message) (result any, rerr, fatal error) {
	defer func() {
		if p := recover(); p != nil {
			if a, ok := p.(abort); ok {
				fatal = a.err
				return
			}
			rerr = fmt.Errorf("%s: the sandbox panicked: %v", m.Method, p)
		}
	}()
	result, rerr = s.handle(m)
	return result, rerr, nil
}

func (s *server) send(m *proto.Message) error {
	if err := proto.Write(s.out, m); err != nil {
		return err
	}
	return s.out.Flush()
}

func (s *server) handle(m *proto.Message) (any, error) {
	switch m.Method {
	case "initialize":
		hello := map[string]any{"name": s.name, "version": proto.Version}
		if len(s.stricter) > 0 {
			hello["stricter"] = s.stricter
		}
		return hello, nil
	case "sandbox/open":
		var p struct{ Grant proto.Grant }
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		b := p.Grant.Budgets
		g, err := core.NewGrant(core.GrantSpec{
			FSRead: stringsOf(p.Grant.FSRead), FSWrite: stringsOf(p.Grant.FSWrite),
			NetHosts: stringsOf(p.Grant.Net), Tools: stringsOf(p.Grant.Tool),
			Budgets: core.Budgets{MaxOps: int64(b.Ops), MaxWall: int64(b.Wall), MaxOutputBytes: int64(b.Output)},
		})
		if err != nil {
			return nil, err
		}
		sb, err := s.f(g, &remote{s})
		if err != nil {
			return nil, err
		}
		s.sb, s.handed = sb, [4][]string{}
		return struct{}{}, nil
	case "sandbox/run":
		if s.sb == nil {
			return nil, errors.New("sandbox/run before sandbox/open")
		}
		var p struct{ Op proto.Op }
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		res := s.sb.Run(core.Op{Kind: string(p.Op.Kind), Args: stringsOf(p.Op.Args)})
		u := s.sb.Usage()
		return proto.Result{Kind: res.Kind.String(), Hard: res.Hard, Data: proto.Bytes(res.Data),
			Usage: proto.Budgets{Ops: proto.Int(u.Ops), Wall: proto.Int(u.Wall), Output: proto.Int(u.Output)}}, nil
	case "sandbox/grant":
		if s.sb == nil {
			return nil, errors.New("sandbox/grant before sandbox/open")
		}
		// First do to the slices the sandbox handed out last time what a
		// hostile caller in its own process would, as the oracle does in
		// process: a sandbox that shares its authority with them now
		// shows a widened grant (grant-immutable compares the first
		// sandbox/grant of a run with the last).
		for i, l := range s.handed {
			for j := range l {
				l[j] = [4]string{"/", "/", "widened-by-caller", "widened-by-caller"}[i]
			}
		}
		v := s.sb.Grant()
		b := v.Budgets()
		s.handed = [4][]string{v.FSRead(), v.FSWrite(), v.NetHosts(), v.Tools()}
		l := s.handed
		return proto.Grant{FSRead: bytesOf(l[0]), FSWrite: bytesOf(l[1]), Net: bytesOf(l[2]), Tool: bytesOf(l[3]),
			Budgets: proto.Budgets{Ops: proto.Int(b.MaxOps), Wall: proto.Int(b.MaxWall), Output: proto.Int(b.MaxOutputBytes)}}, nil
	case "shutdown":
		return struct{}{}, nil
	}
	return nil, fmt.Errorf("unknown method %q", m.Method)
}

// remote is the world of a served sandbox: every call is a world request
// to the harness, answered before the sandbox goes on. A broken harness
// makes it panic with an abort, which dispatch recovers: the server cannot
// answer anything any more.
type remote struct{ s *server }

func (r *remote) ask(method string, params proto.WorldParams, result any) {
	r.s.id++
	id := proto.IntID(r.s.id)
	raw, _ := json.Marshal(params)
	if err := r.s.send(&proto.Message{ID: id, Method: method, Params: raw}); err != nil {
		r.fail(method, err)
	}
	m, err := r.s.in.Read()
	switch {
	case errors.Is(err, io.EOF):
		r.fail(method, errors.New("the harness closed stdin"))
	case err != nil:
		r.fail(method, err)
	case m.Method != "":
		r.fail(method, fmt.Errorf("a request (%s) before the answer", m.Method))
	case !m.ID.Equal(id):
		r.fail(method, fmt.Errorf("a response with id %s, want %s", m.ID, id))
	case m.Error != nil:
		r.fail(method, fmt.Errorf("the harness answered with an error: %d %s", m.Error.Code, m.Error.Message))
	}
	if result != nil {
		if err := json.Unmarshal(m.Result, result); err != nil {
			r.fail(method, fmt.Errorf("an answer that does not read: %v", err))
		}
	}
}

// fail ends the call in progress, and the server, for err.
func (r *remote) fail(method string, err error) {
	panic(abort{fmt.Errorf("%s: %w", method, err)})
}

func answer(b *proto.Bytes, absent bool) (string, bool) {
	if absent || b == nil {
		return "", false
	}
	return string(*b), true
}

func (r *remote) Read(p string) (string, bool) {
	var a proto.Answer
	r.ask("world/read", proto.WorldParams{Path: proto.Bytes(p)}, &a)
	return answer(a.Data, a.Absent)
}

func (r *remote) Write(p, data string) {
	r.ask("world/write", proto.WorldParams{Path: proto.Bytes(p), Data: proto.Bytes(data)}, nil)
}

// Realpath is VFS.Realpath (SPEC §1, §13).
func (r *remote) Realpath(p string) (string, bool) {
	var a proto.Answer
	r.ask("world/realpath", proto.WorldParams{Path: proto.Bytes(p)}, &a)
	return answer(a.Path, a.Absent)
}

func (r *remote) Resolve(host string) netip.Addr {
	var a proto.Answer
	r.ask("world/resolve", proto.WorldParams{Host: proto.Bytes(host)}, &a)
	addr, err := netip.ParseAddr(a.Addr)
	if err != nil {
		r.fail("world/resolve", fmt.Errorf("an answer that is not an address: %q", a.Addr))
	}
	return addr
}

func (r *remote) Fetch(host string, addr netip.Addr, path string) (string, bool) {
	var a proto.Answer
	r.ask("world/fetch", proto.WorldParams{Host: proto.Bytes(host), Addr: addr.String(), Path: proto.Bytes(path)}, &a)
	return answer(a.Body, a.Absent)
}

func (r *remote) Call(name, input string) (string, bool) {
	var a proto.Answer
	r.ask("world/call", proto.WorldParams{Name: proto.Bytes(name), Input: proto.Bytes(input)}, &a)
	return answer(a.Output, a.Absent)
}

func (r *remote) Now() (int64, bool) {
	var t proto.Tick
	r.ask("world/now", proto.WorldParams{}, &t)
	return int64(t.Tick), !t.Past
}
