//go:build unix

package proc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
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
	case "middle": // starts a leaf in a session of its own, and exits
		cmd := exec.Command(roleArgv("leaf")[0], roleArgv("leaf")[1:]...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "middle:", err)
			return 1
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
// names, "default" for Start's own choice), says "ready" and its
// isolation once the tree has grown, and waits to be killed.
func harness(args []string) int {
	switch args[0] {
	case "reaper":
		isolationOverride = []isolation{reaper}
	case "userns":
		isolationOverride = []isolation{userNamespace}
	}
	p, err := Start(roleArgv("tree"), "")
	if err != nil {
		if errors.Is(err, errUnavailable) {
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
