//go:build unix

package proc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
)

// roleArg, as its first argument, makes the test binary one of the
// children the tests start instead of running the tests: the role named
// by the second argument, with the rest as its arguments. An argument,
// not an environment variable, so that a supervisor re-executing the
// binary (whose arguments start with its own name) never plays a role.
const roleArg = "sbxfuzz-proc-test-role"

func init() {
	if len(os.Args) > 2 && os.Args[1] == roleArg {
		os.Exit(playRole(os.Args[2], os.Args[3:]))
	}
}

// roleArgv is the command that plays role with args.
func roleArgv(role string, args ...string) []string {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	return append([]string{self, roleArg, role}, args...)
}

// roleCommand is roleArgv as a command line for Sessions.
func roleCommand(role string, args ...string) string {
	argv := roleArgv(role, args...)
	for i, a := range argv {
		argv[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(argv, " ")
}

func playRole(role string, args []string) int {
	switch role {
	case "serve": // the Go side of sbxfuzz/1 over the reference
		if err := Serve(os.Stdin, os.Stdout, "role serve", core.ReferenceFactory); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			return 2
		}
		return 0
	case "mute": // reads every request, answers none
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "stray", "straylate":
		return strayChild(role == "straylate", args)
	case "harness":
		return harness(args)
	case "tree":
		return tree()
	case "unfinished": // answers initialize, then writes part of a line, and waits
		return unfinished()
	case "grouptree": // starts a leaf in its own process group, says "ready", and waits
		return groupTree()
	case "middle": // starts a leaf in a session of its own, and exits
		cmd := exec.Command(roleArgv("leaf")[0], roleArgv("leaf")[1:]...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "middle:", err)
			return 1
		}
		return 0
	case "fetcher":
		return fetcher()
	case "ownhttp": // sbxfuzz/1 over the reference, fetching for real: args[0] "checked", "byname", "strict", "strict-undeclared" or "strict-dropwrites"
		return ownHTTP(args[0])
	case "dropwrites": // sbxfuzz/1 over the reference, answering allowed writes ok and writing nothing; args[0] "stricter" declares stricter fetches
		var stricter []string
		if args[0] == "stricter" {
			stricter = []string{core.OpFetch}
		}
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return dropsWrites{core.NewReference(g, w), g}, nil
		}
		if err := Serve(os.Stdin, os.Stdout, "dropwrites", f, stricter...); err != nil {
			fmt.Fprintln(os.Stderr, "dropwrites:", err)
			return 2
		}
		return 0
	case "leaf":
		for {
			time.Sleep(time.Hour)
		}
	}
	fmt.Fprintln(os.Stderr, "unknown role", role)
	return 2
}

// strayChild answers sbxfuzz/1 with unknown_op to every op, and after its
// answer to the first op sends a world request nobody asked for: in the
// same write as the answer, or (late) once the file args[0] exists, so
// that the test knows the harness is between ops.
func strayChild(late bool, args []string) int {
	in := proto.NewReader(os.Stdin)
	stray := `{"jsonrpc":"2.0","id":"s1","method":"world/read","params":{"path":"/etc/secret"}}` + "\n"
	runs := 0
	for {
		m, err := in.Read()
		if err != nil {
			return 0
		}
		var result any = struct{}{}
		switch m.Method {
		case "initialize":
			result = map[string]string{"name": "stray", "version": "0"}
		case "sandbox/run":
			runs++
			result = proto.Result{Kind: "unknown_op", Usage: proto.Budgets{Ops: proto.Int(runs)}}
		case "sandbox/grant":
			result = proto.Grant{FSRead: []proto.Bytes{}, FSWrite: []proto.Bytes{}, Net: []proto.Bytes{}, Tool: []proto.Bytes{},
				Budgets: proto.Budgets{Ops: 1000, Wall: 1000000, Output: 1 << 20}}
		}
		raw, _ := json.Marshal(result)
		line, _ := json.Marshal(proto.Message{JSONRPC: "2.0", ID: m.ID, Result: raw})
		line = append(line, '\n')
		if runs == 1 && m.Method == "sandbox/run" {
			if !late {
				line = append(line, stray...)
			} else {
				go func() {
					for _, err := os.Stat(args[0]); err != nil; _, err = os.Stat(args[0]) {
						time.Sleep(10 * time.Millisecond)
					}
					os.Stdout.WriteString(stray)
				}()
			}
		}
		os.Stdout.Write(line)
		if m.Method == "shutdown" {
			return 0
		}
	}
}

// harness plays the harness: it starts a tree (under the isolation args[0]
// names, "default" for Start's own choice, "netns" for StartNet's), says "ready" and its
// isolation once the tree has grown, and waits to be killed.
func harness(args []string) int {
	switch args[0] {
	case "reaper":
		isolationOverride = []isolation{reaper}
	case "userns":
		isolationOverride = []isolation{userNamespace}
	}
	var p *Process
	var err error
	if args[0] == "netns" {
		p, _, err = StartNet(roleArgv("tree"), "", nil, netns.Network{})
	} else {
		p, err = Start(roleArgv("tree"), "")
	}
	if err != nil {
		if errors.Is(err, errUnavailable) || errors.Is(err, netns.ErrUnavailable) {
			fmt.Println("unavailable", err)
			return 0
		}
		fmt.Fprintln(os.Stderr, "harness:", err)
		return 1
	}
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil || line != "ready\n" {
		fmt.Fprintf(os.Stderr, "harness: the tree said %q, %v; %s\n", line, err, p.Stderr())
		return 1
	}
	fmt.Println("ready", p.mode)
	for {
		time.Sleep(time.Hour)
	}
}

// tree plays a child that leaves descendants behind: a leaf in its own
// process group, and one a middle process started in a session of its own
// and left as an orphan. It says "ready" once both run.
func tree() int {
	leaf := exec.Command(roleArgv("leaf")[0], roleArgv("leaf")[1:]...)
	middle := exec.Command(roleArgv("middle")[0], roleArgv("middle")[1:]...)
	middle.Stdout, middle.Stderr = os.Stdout, os.Stderr
	if err := leaf.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "tree:", err)
		return 1
	}
	if err := middle.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "tree: middle:", err)
		return 1
	}
	fmt.Println("ready")
	for {
		time.Sleep(time.Hour)
	}
}

// unfinished plays a child that answers its first request and, in the
// same write, begins a line it never ends.
func unfinished() int {
	m, err := proto.NewReader(os.Stdin).Read()
	if err != nil {
		fmt.Fprintln(os.Stderr, "unfinished:", err)
		return 1
	}
	answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]string{"name": "unfinished", "version": "1"}})
	os.Stdout.Write(append(answer, "\n{\"jsonrpc\":"...))
	for {
		time.Sleep(time.Hour)
	}
}

// groupTree plays a child with a descendant in its process group only:
// a leaf, which nothing but a kill of the group takes. It says "ready" once
// the leaf runs.
func groupTree() int {
	leaf := exec.Command(roleArgv("leaf")[0], roleArgv("leaf")[1:]...)
	if err := leaf.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "grouptree:", err)
		return 1
	}
	fmt.Println("ready")
	for {
		time.Sleep(time.Hour)
	}
}

// fetcher reads lines "ADDR:PORT HOST PATH" on stdin and, for each, GETs
// PATH from ADDR:PORT with Host HOST and says the status and the body on
// one line; it exits 0 when stdin ends.
func fetcher() int {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) != 3 {
			fmt.Println("bad request line")
			continue
		}
		c, err := net.Dial("tcp", f[0])
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", f[2], f[1])
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			fmt.Println(err)
			c.Close()
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		c.Close()
		fmt.Println(resp.Status, string(body))
	}
	return 0
}

// ownHTTP serves sbxfuzz/1 with the reference sandbox over a world whose
// network is the real one: a net_fetch resolves with the system's
// resolver and opens its own HTTP connection, as a sandbox with its own
// HTTP client does. Mode "byname" is a defect: the guard checks a fixed
// public address and the fetch dials the host by name, resolving it
// again. Mode "strict" is stricter than SPEC §6, as SSRF libraries are:
// it refuses an answer in the documentation range 203.0.113.0/24, and
// declares so in its initialize answer; "strict-undeclared" does the same
// without declaring it; "strict-dropwrites" declares it and answers an
// allowed write ok without writing. It refuses to run outside the
// harness's network namespace.
func ownHTTP(mode string) int {
	if os.Getenv(netnsEnv) != "1" {
		fmt.Fprintln(os.Stderr, "ownhttp: refusing to fetch for real outside the harness's network namespace ("+netnsEnv+"=1 is not set)")
		return 2
	}
	f := func(g core.Grant, w core.World) (core.Sandbox, error) {
		own := ownNet{World: w, byName: mode == "byname", strict: strings.HasPrefix(mode, "strict")}
		if mode == "strict-dropwrites" {
			return dropsWrites{core.NewReference(g, own), g}, nil
		}
		return core.ReferenceFactory(g, own)
	}
	var stricter []string
	if mode == "strict" || mode == "strict-dropwrites" {
		stricter = []string{core.OpFetch}
	}
	if err := Serve(os.Stdin, os.Stdout, "ownhttp", f, stricter...); err != nil {
		fmt.Fprintln(os.Stderr, "ownhttp:", err)
		return 2
	}
	return 0
}

// ownNet is a served sandbox's world with its network made real: every
// call but Resolve and Fetch is a world request.
type ownNet struct {
	core.World
	byName bool
	strict bool // an answer in 203.0.113.0/24 is refused as internal
}

// documentation is TEST-NET-3, which the strict mode refuses.
var documentation = netip.MustParsePrefix("203.0.113.0/24")

// netWait bounds a lookup or a fetch of ownNet: the harness's op timeout
// comes first in a test that passes.
const netWait = time.Minute

func (o ownNet) Resolve(host string) netip.Addr {
	if o.byName {
		return netip.MustParseAddr("203.0.113.1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), netWait)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 || o.strict && documentation.Contains(addrs[0]) {
		return netip.IPv4Unspecified() // internal: the fetch is refused
	}
	return addrs[0]
}

func (o ownNet) Fetch(host string, addr netip.Addr, path string) (string, bool) {
	to := netip.AddrPortFrom(addr, 80).String()
	if o.byName {
		to = net.JoinHostPort(host, "80")
	}
	c, err := net.DialTimeout("tcp", to, netWait)
	if err != nil {
		return "", false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(netWait))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", false
	}
	body, err := io.ReadAll(resp.Body)
	return string(body), err == nil
}

// dropsWrites answers an allowed fs_write ok, charged as the reference
// charges it, and writes nothing.
type dropsWrites struct {
	*core.Reference
	g core.Grant
}

func (s dropsWrites) Run(op core.Op) core.Result {
	if op.Kind != core.OpWrite || len(op.Args) != 2 || !s.g.MayWrite(op.Args[0]) {
		return s.Reference.Run(op)
	}
	s.Reference.Run(core.Op{Kind: "sbxfuzz:charge"}) // an unknown op: charged as this one, no effect
	return core.Result{Kind: core.OK}
}
