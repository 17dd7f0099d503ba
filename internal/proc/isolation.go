package proc

// isolation is how a child is kept from outliving the harness, it and
// everything it starts. Start tries the isolations the system may allow,
// strongest first, and takes the first that starts (see isolations).
type isolation int

const (
	// direct runs the command in a process group of its own, killed as
	// a whole, with a parent-death signal on Linux: a descendant that
	// leaves the group (setsid) or outlives its parent escapes both.
	direct isolation = iota
	// reaper runs the command under a supervisor — the harness's own
	// program re-executed (see supervise) — that is a child subreaper
	// (Linux): every descendant orphaned below it, setsid() ones
	// included, becomes its child, and it kills them all when the command
	// exits, when the harness says so (SIGTERM), or when the harness dies
	// (its parent-death signal is SIGTERM, which it catches).
	reaper
	// pidNamespace makes the supervisor the init of a PID namespace of
	// its own (a harness with CAP_SYS_ADMIN): when it dies — the command
	// exited, the harness killed it, or the harness died (its
	// parent-death signal is SIGKILL) — the kernel kills every process in
	// the namespace, whatever it did to leave its group or session.
	pidNamespace
	// userNamespace is pidNamespace inside a user namespace of its own,
	// for a harness without privileges, where the system allows
	// unprivileged user namespaces. The harness's user and group map to
	// themselves, so the command runs as the same user, with the same
	// access to files.
	userNamespace
	// netNamespace is the init of new user, network, mount and PID
	// namespaces (package netns), for StartNet: as userNamespace, and
	// the process's network is the harness's.
	netNamespace
)

// String names the isolation as the documentation does.
func (m isolation) String() string {
	switch m {
	case reaper:
		return "supervisor (child subreaper)"
	case pidNamespace:
		return "supervisor in a PID namespace"
	case userNamespace:
		return "supervisor in a PID namespace in a user namespace"
	case netNamespace:
		return "init of a network namespace"
	}
	return "process group"
}

// isolationOverride, when set, replaces isolations(): for the tests of
// the weaker isolations on a system that allows the stronger.
var isolationOverride []isolation

// isolationOrder is the isolations Start tries, in order.
func isolationOrder() []isolation {
	if isolationOverride != nil {
		return isolationOverride
	}
	return isolations()
}
