// Package egressproxy is an HTTP forward proxy that lets a client reach
// the hosts it is granted, on port 80, and nothing inside the
// infrastructure, whatever their names resolve to: an egress guard of the
// kind an AI agent's sandbox puts between its tools and the network,
// written from SPEC §6 and §14 as a starting point to copy. It is the
// standard library only; package main in cmd/egressproxy runs it.
//
// A request is let through in these steps, and refused (403, body
// "egressproxy: denied: why") at the first that fails:
//
//  1. It is GET http://host/path (absolute form, no port, no user name in
//     the URL) or CONNECT host:80.
//  2. host is granted, byte for byte: "A.TEST", "a.test." and
//     "evil-a.test" are not "a.test". An IPv6 literal is granted in
//     brackets, as a URL names it: "[2001:db8::1]".
//  3. host is resolved exactly once (an IP literal is itself) and has an
//     address.
//  4. No address it resolved to is internal (SPEC §6): loopback, private,
//     link-local (the cloud metadata address 169.254.169.254 among them),
//     carrier-grade NAT 100.64.0.0/10 and the other reserved ranges, and
//     an IPv4 address carried in IPv6 (::ffff:10.0.0.1, NAT64
//     64:ff9b::a00:1, 6to4 2002:a00:1::, IPv4-compatible) is judged as the
//     IPv4 address it reaches.
//  5. The proxy connects to the address it checked, port 80, never to the
//     name: connecting by name would resolve it again, and the second
//     answer may be internal (DNS rebinding).
//
// A GET is then sent with the Host the client named and without
// hop-by-hop headers, and the upstream's status, headers and body come
// back as they are: redirects are the client's to follow, through the
// proxy again. A CONNECT is answered 200 and its bytes copied both ways.
// Each request has one upstream connection of its own, and a bounded
// time (Config.Timeout). An upstream that cannot be reached, that
// answers no HTTP or nothing in time, or whose response header is larger
// than 64 KiB, is answered 502.
//
// Run it with the granted hosts in a file (one per line, byte for byte;
// blank lines are ignored) or on the command line:
//
//	go build -o egressproxy ./examples/egressproxy/cmd/egressproxy
//	./egressproxy -listen 127.0.0.1:3128 -allow-file hosts.txt
//	./egressproxy -listen 127.0.0.1:3128 -allow api.example.com,cdn.example.net
//	curl -x http://127.0.0.1:3128 http://api.example.com/status
//
// sbxfuzz judges it on the connections it really opens (SPEC §14): the
// proxy door runs it in a network namespace where every address answers
// and the world's DNS answers its lookups, with the grant's hosts in the
// file, and sends each net_fetch through it:
//
//	sbxfuzz run --sut proxy:./egressproxy --checks 20000
//
// Five deliberate defects, off by default, show what that finds: see
// defect.go.
package egressproxy
