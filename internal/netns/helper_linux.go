package netns

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// helperEnv, set in its environment, makes a program that links this
// package the namespace's helper (see helper) instead of itself; its value
// is a job in JSON. helperName is the helper's only argument, what ps
// shows for the namespace's init.
const (
	helperEnv  = "SBXFUZZ_NETNS_HELPER"
	helperName = "sbxfuzz-netns"
	probeEnv   = "SBXFUZZ_NETNS_PROBE" // makes the program exit 0 at once: Supported's command
)

// job is what the helper is asked to do.
type job struct {
	Path  string   `json:"path"` // the command's program, resolved
	Argv  []string `json:"argv"`
	Env   []string `json:"env"`
	Dir   string   `json:"dir"`
	Ports []uint16 `json:"ports"`
	Etc   string   `json:"etc"` // holds resolv.conf, hosts and nsswitch.conf
}

// etcFiles are the files the helper mounts over /etc, from job.Etc.
var etcFiles = []string{"resolv.conf", "hosts", "nsswitch.conf"}

// The helper is the harness's own program, re-executed in the new
// namespaces, so that nothing (ip, unshare) needs installing; it runs
// before the program's own main, or its tests, do anything.
func init() {
	if j, ok := os.LookupEnv(helperEnv); ok {
		os.Exit(helper(j))
	}
	if _, ok := os.LookupEnv(probeEnv); ok {
		os.Exit(0)
	}
}

// helper sets the namespace up, sends the harness its sockets over fd 3
// (one message: "ok" and the descriptors, or why not), starts the command
// (its stdin, stdout and stderr are the helper's) and says so ("+", or why
// it could not), then stays as the init of the PID namespace: it reaps
// whatever is orphaned there, makes sockets in the namespace for the
// harness's Dial (see serveControl), and exits with the command's status,
// at which the kernel kills everything left in the namespace.
func helper(spec string) int {
	report := os.NewFile(3, "report")
	syscall.CloseOnExec(3)
	var j job
	if err := json.Unmarshal([]byte(spec), &j); err != nil || len(j.Argv) == 0 {
		report.WriteString(fmt.Sprintf("no command: %.80q", spec))
		return 127
	}
	files, err := setUp(j)
	if err != nil {
		report.WriteString(err.Error())
		return 127
	}
	if err := sendFiles(report, files); err != nil {
		return 127
	}
	for _, f := range files {
		f.Close()
	}
	child, err := syscall.ForkExec(j.Path, j.Argv, &syscall.ProcAttr{Dir: j.Dir, Env: j.Env, Files: []uintptr{0, 1, 2}})
	if err != nil {
		report.WriteString((&os.PathError{Op: "fork/exec", Path: j.Path, Err: err}).Error())
		return 127
	}
	// Our copies of the command's stdin and stdout would keep the harness
	// from seeing the command close them.
	syscall.Close(0)
	syscall.Close(1)
	if _, err := report.WriteString("+"); err != nil {
		return 1 // the harness is gone: so goes the namespace
	}
	go serveControl(report)
	return reapUntil(child)
}

// reapUntil reaps every process of the namespace that ends (the init's
// duty: orphans become its children) until child does, and returns
// child's status: its exit status, or 128+N for a signal N.
func reapUntil(child int) int {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 127 // no child left: only a broken kernel gets here
		case pid != child:
			continue
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}

// setUp makes the network and the files of the namespace and returns the
// sockets, in the order the harness expects: per port its IPv4 and IPv6
// listener, then DNS over UDP on IPv4 and IPv6.
func setUp(j job) ([]*os.File, error) {
	if err := makeEveryAddressLocal(); err != nil {
		return nil, err
	}
	if err := mountEtc(j.Etc); err != nil {
		return nil, err
	}
	// A /proc of the namespace's own, as an exec: child's supervisor
	// mounts: the host's shows the command under the host's pids, where
	// a program that reads /proc/self/... of its own pid (Chromium's
	// crash handler) finds another process or none. Best effort: without
	// it the command still runs, as it did before.
	syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "")
	var files []*os.File
	for _, p := range j.Ports {
		for _, network := range []string{"tcp4", "tcp6"} {
			f, err := listenFile(network, p)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	for _, network := range []string{"udp4", "udp6"} {
		f, err := listenFile(network, 53)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// mountEtc makes every mount of the namespace private, so that nothing
// mounted here shows on the host, mounts the files of dir over /etc's (a
// file /etc does not have is left alone), and an empty tmpfs of the
// namespace's own over /dev/shm: a program that names its shared memory
// (squid does) would otherwise meet, in the machine's /dev/shm, the
// segments of the same program in another namespace, started at the same
// time by another worker, or left by one killed before.
func mountEtc(dir string) error {
	if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if err := syscall.Mount("shm", "/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777,size=64m"); err != nil {
			return fmt.Errorf("mounting a private /dev/shm: %w", err)
		}
	}
	for _, name := range etcFiles {
		target := filepath.Join("/etc", name)
		if _, err := os.Stat(target); err != nil {
			continue
		}
		if err := syscall.Mount(filepath.Join(dir, name), target, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("mounting over %s: %w", target, err)
		}
	}
	return nil
}

// listenFile binds network on port of every address and returns its
// socket. A "tcp6" or "udp6" socket is IPv6 only (Go sets IPV6_V6ONLY on
// a wildcard of those networks), so an IPv4 socket can share the port.
func listenFile(network string, port uint16) (*os.File, error) {
	wildcard := "0.0.0.0"
	if network[len(network)-1] == '6' {
		wildcard = "::"
	}
	addr := net.JoinHostPort(wildcard, strconv.Itoa(int(port)))
	if network[0] == 'u' {
		c, err := net.ListenPacket(network, addr)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		return c.(*net.UDPConn).File()
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return l.(*net.TCPListener).File()
}

// sendFiles sends "ok" and the descriptors of files in one message.
func sendFiles(report *os.File, files []*os.File) error {
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	return syscall.Sendmsg(int(report.Fd()), []byte("ok"), syscall.UnixRights(fds...), nil, 0)
}
