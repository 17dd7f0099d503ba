// Package netns runs a command in a network of its own (SPEC §14, "On the
// machine, for any program"): new Linux user, network, mount and PID
// namespaces, no privilege on the host, where only loopback exists and
// every address is local, so that whatever address the command connects
// to, a listener of the harness accepts the connection and learns the
// address it was aimed at.
//
// Inside the namespace:
//
//   - a DNS server on port 53 of every address answers A and AAAA queries
//     from the caller's Resolve, called once per query (so a world's dns
//     line can cycle, which is rebinding), and nothing else;
//   - /etc/resolv.conf, /etc/hosts and /etc/nsswitch.conf are replaced by
//     bind mounts that send every lookup to that server, so the machine's
//     own files answer nothing (not even localhost);
//   - /dev/shm is an empty tmpfs of the namespace's own, so programs that
//     name their shared memory never meet another namespace's;
//   - TCP listeners on the caller's ports, on 0.0.0.0 and [::], hand every
//     connection to the caller's http.Handler, and every connection and
//     request is recorded with the local address it was aimed at, unmapped
//     (an IPv4-mapped address is the IPv4 address it spells).
//
// The namespaces are set up by the harness's own program, re-executed
// (see helper_linux.go), which binds the sockets, passes them to the
// harness over a Unix socket, starts the command and stays as the init of
// the PID namespace: the harness accepts and answers from its own
// process; the init reaps, exits with the command's status, and killing it
// kills everything the command started. Over the same Unix socket the
// init hands the harness sockets made in the namespace, which is how
// Sandbox.Dial reaches a server the command listens with.
//
// Where namespaces are not available (not Linux, unprivileged user
// namespaces disabled), Start returns an error that wraps ErrUnavailable
// and says why in one line.
package netns
