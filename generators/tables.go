package generators

import (
	"net/netip"
	"strings"
)

// The tables generators draw from. Strings are built once here, so that the
// hot path only picks and concatenates. In every table the simplest entry
// comes first: rapid shrinks draws towards index 0.

// fill is the byte pattern big files, bodies, tool outputs and inputs are
// sliced from: slicing shares memory, so a megabyte costs nothing per use.
var fill = strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_", (maxFill+63)/64)[:maxFill]

// maxFill is the longest slice of fill: just over the default output budget.
const maxFill = 1<<20 + 64

// deep, dotDeep, upDeep and slashes are long runs sliced for long paths.
var (
	deep    = strings.Repeat("/d", 512)
	dotDeep = strings.Repeat("/.", 512)
	upDeep  = strings.Repeat("/..", 256)
	slashes = strings.Repeat("/", 256)
)

// readBases are the roots fs_read grants, without a trailing slash; the
// world gen adds one half the time.
var readBases = []string{"/work", "/data", "/srv/app", "/home/agent/project", "/tmp/sbx", "/opt/tool.d"}

// fileNames are the names stored below a read root and the names path
// classes aim at, so hostile spellings meet real content; fileData is what
// each holds ("" for "big" means a slice of fill): ASCII, and the last
// three multi-byte UTF-8, Latin-1 (invalid UTF-8) and binary with NULs, so
// that reads return every byte class.
var (
	fileNames = []string{"data.txt", "x", "notes.md", "sub/deep/notes.md", "ten", "empty", "big",
		"..hidden", "%2e%2e/x", "\uff0e\uff0e/x", "out/r.txt", "utf8.txt", "latin1.txt", "image.png"}
	fileData = []string{"hello", "X", "line one\nline two\n", "deep notes", "0123456789", "", "",
		"dotdot-prefixed name", "literal percent directory", "literal fullwidth directory", "R",
		"na\u00efve caf\u00e9 \u2713", "caf\xe9 na\xefve", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"}
)

// bigFileSizes are the sizes of a root's "big" file: VFS content is hashed
// by the world, so files stay moderate; bodies and tool outputs go bigger.
var bigFileSizes = []int{100, 1000, 4096, 16384}

// bigOutputSizes are the sizes of big bodies and canned tool outputs.
var bigOutputSizes = []int{100, 1000, 4096, 65536, 1<<20 + 1}

// siblingSuffixes make prefix siblings of a root: /work + "shop/secret".
var siblingSuffixes = []string{"shop/secret", "shop", "2/secret", ".bak/secret", "-old/secret"}

// outsideFiles are sensitive files outside every root but "/".
var outsideFiles = []struct{ path, data string }{
	{"/etc/passwd", "root:x:0:0:root:/root:/bin/sh"},
	{"/etc/shadow", "root:LEAKED-HASH:19000::::::"},
	{"/proc/self/environ", "AWS_SECRET_ACCESS_KEY=LEAKED"},
	{"/root/.ssh/id_rsa", "-----BEGIN LEAKED KEY-----"},
	{"/", "LEAK-root-key"},
	{"/home/user/.aws/credentials", "[default]\naws_secret_access_key=LEAKED"},
}

// writeNames are what benign writes create below a write root: a binary
// type's name among them, which a tool may decode (base64) or refuse.
var writeNames = []string{"r.txt", "report.txt", "notes.md", "data.txt", "x", "sub/y.txt", "image.png"}

// writeData is what writes carry: line ends of another system among them,
// which a tool that edits by lines may rewrite.
var writeData = []string{"done", "pwned", "", "x", "../../etc/passwd", "v2", "line\nline", "r\u00e9sum\u00e9 \u2713", "crlf\r\nline\r"}

// toolInputs are what tool ops send.
var toolInputs = []string{"hello", "", "abc", "../../etc/passwd", "Summarize", "id; cat /etc/passwd"}

// Hosts. plainHosts are ordinary granted names (two of them spelled so that
// the exact-match rule bites: mixed case, a trailing dot), and an IDNA
// A-label, whose Unicode form a guard that encodes hosts lets through.
// None is a pattern (*.d, .d) or has a port, which an allow-list of
// patterns would widen: a real resolver will not look such a name up and
// the world answers an HTTP request by its Host without the port, so a
// correct sandbox on a real network could not fetch what the model allows.
var plainHosts = []string{"api.internal", "api.example.com", "cdn.example.net", "API.Example.ORG", "dotted.example.", "files.corp.example",
	"xn--bcher-kva.example"}

// aLabels are IDNA A-labels of plainHosts and the U-labels they encode.
var aLabels = []struct{ ascii, unicode string }{{"xn--bcher-kva", "b\u00fccher"}}

// fetchPaths are the paths routed for plain hosts, and those fetched.
var fetchPaths = []string{"/status", "/v1/items", "/big", "/empty", "/missing"}

// ipHosts spell addresses as inet_aton and IPv6 allow: loopback, private,
// reserved and range edges first, then public ones that must not be
// over-blocked. Every one parses with spec.ParseInetAton or
// spec.ParseIPv6Literal.
var ipHosts = []string{
	"127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.0.0.1", "0x7f.1",
	"017700000001", "[::1]", "::1", "::ffff:127.0.0.1", "[::ffff:7f00:1]", "64:ff9b::7f00:1",
	"0", "0.0.0.0", "[::]", "10.1", "4294967295", "172.31.255.254", "100.127.255.254",
	"198.19.0.1", "192.0.0.170", "224.0.0.251", "ff02::1", "240.0.0.1", "fe80::1", "192.168.0.1",
	"0X7F000001", "[fe80::1%eth0]", "0x0a.0x00.0x00.0x01",
	"0127.0.0.1", "8.8.8.8", "::ffff:203.0.113.1", "172.32.0.1", "100.128.0.1", "198.20.0.1",
}

// ipOpOnly parse too, but no grant may hold them (white space): inet_aton
// ignores what follows the space, the exact-match grant check must not.
var ipOpOnly = []string{"127.0.0.1 evil", "127.1\t", "2130706433 x"}

// ipNearMisses look like addresses but are names to inet_aton (they resolve
// to the public default): a sandbox that parses them otherwise differs.
var ipNearMisses = []string{"09.1.1.1", "1.2.3.4.5", "256.1.1.1", "0x", "1..1", "1.2.3."}

// metadataHosts reach cloud metadata services, by address, name or
// spelling, with two ungranted neighbours at the end.
var metadataHosts = []string{
	"169.254.169.254", "metadata.google.internal", "METADATA.GOOGLE.INTERNAL", "metadata.google.internal.",
	"metadata", "instance-data", "fd00:ec2::254", "[fd00:ec2::254]", "100.100.100.200", "169.254.170.2",
	"::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "0xa9fea9fe", "2852039166", "0251.0376.0251.0376",
	"localhost", "app.localhost", "169.254.169.253", "metadata.google.internal.evil.com",
}

// metadataPaths and metadataBodies: credential-shaped routes, so a leak
// shows.
var (
	metadataPaths = []string{"/latest/meta-data/iam/security-credentials/", "/computeMetadata/v1/instance/service-accounts/default/token",
		"/latest/meta-data/", "/v2/credentials", "/metadata/instance?api-version=2021-02-01"}
	metadataBodies = []string{"AKIA-LEAKED-CREDENTIALS", "ya29.LEAKED-TOKEN", "LEAK-meta-data", "LEAK-ecs-task-role", "LEAK-azure-instance"}
)

// rebinders are names whose DNS lines alternate public and internal
// answers. Their public answers are outside the documentation ranges, as
// publicAddrs are: a guard that refuses those would refuse the first
// answer and never meet the internal one. patient.example answers public
// six times before its internal answer: a guard that looks a name up
// several times and checks every answer (dssrf looks up six times) meets
// the internal one only at the fetch's own lookup after them.
var rebinders = []struct {
	host  string
	addrs []netip.Addr
}{
	{"rebind.example", addrs("93.184.215.7", "127.0.0.1")},
	{"flip6.example", addrs("169.254.169.254", "2606:4700::1111")},
	{"mapped.example", addrs("151.101.1.11", "::ffff:10.0.0.5")},
	{"nat64.example", addrs("151.101.65.12", "64:ff9b::a9fe:a9fe")},
	{"slow.example", addrs("151.101.129.13", "151.101.129.13", "100.100.100.200")},
	{"Rebind.Upper.example", addrs("93.184.215.14", "10.0.0.1")},
	{"patient.example", addrs("151.101.193.15", "151.101.193.15", "151.101.193.15", "151.101.193.15", "151.101.193.15", "151.101.193.15", "127.0.0.1")},
}

// dnsMetadata is a harmless-looking name whose DNS line points at the
// metadata service.
const dnsMetadata = "cfg.example"

// serviceName is a single-label name, as a cluster's or a compose file's
// services are called, whose DNS line answers serviceAddr, a private
// address: a guard that lets such names through as services of its own
// (one that checks only dotted names) reaches the inside.
const serviceName = "intranet"

// serviceAddr is serviceName's answer.
var serviceAddr = netip.MustParseAddr("10.0.0.5")

// attackerHosts are exfiltration targets; attackerRoutes give some of them
// bodies, so a leak returns data.
var attackerHosts = []string{"evil.com", "attacker.example", "c2VjcmV0cw.exfil.attacker.example", "pastebin.com",
	"203.0.113.1", "", "example.com", "localhost.evil.com", "webhook.site", "evil.com.", "constructor"}

var attackerRoutes = []struct{ host, path string }{
	{"evil.com", "/steal?d=secrets"}, {"attacker.example", "/"}, {"pastebin.com", "/api/api_post.php"},
	{"203.0.113.1", "/status"}, {"169.254.169.254", "/latest/meta-data/iam/security-credentials/"},
}

// pagePath is the path of a granted host's page that makes a browser ask
// for more.
const pagePath = "/page"

// pageBodies are HTML pages whose refresh, frame, image or script a
// browser that renders them (a fetch tool built on one) asks for, at an
// internal address or the metadata endpoint: what the page leads it to
// is the fetch's, judged as a redirect's is. A client that only reads
// the bytes asks nothing more.
var pageBodies = []string{
	`<html><meta http-equiv="refresh" content="0;url=http://169.254.169.254/latest/meta-data/"></html>`,
	`<html><iframe src="http://127.0.0.1/admin"></iframe></html>`,
	`<html><img src="http://[::1]/admin"><script>fetch("http://10.0.0.1/")</script></html>`,
}

// redirectPath is the path of a granted host's redirect route.
const redirectPath = "/go"

// redirectTargets are the Locations of the redirect routes (SPEC §9
// redirect): internal addresses in several spellings and families,
// metadata endpoints, ungranted hosts, a name that rebinds, names a world
// may grant whose first answer is internal (a guard that checks a
// Location against its allow-list by name, and not where the name leads,
// follows them inside), protocol-relative ones (a guard that parses a
// Location with no base fails on "//host" and lets the follow go
// unchecked, where a client resolves it against the page's URL), and a
// relative one, which stays on the granted host. A port other than 80 is
// left out: a real network answers only there (SPEC §14).
var redirectTargets = []string{
	"http://169.254.169.254/latest/meta-data/iam/security-credentials/",
	"http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token",
	"http://100.100.100.200/latest/meta-data/",
	"http://[fd00:ec2::254]/latest/meta-data/",
	"http://127.0.0.1/admin",
	"http://localhost/admin",
	"http://[::1]/admin",
	"http://[::ffff:127.0.0.1]/admin",
	"http://0x7f.1/admin",
	"http://2130706433/admin",
	"http://10.0.0.1/",
	"http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
	"http://evil.com/steal?d=secrets",
	"http://attacker.example/",
	"http://rebind.example/data",
	"http://" + dnsMetadata + "/latest/meta-data/iam/security-credentials/",
	"http://" + serviceName + "/admin",
	"http://flip6.example/data",
	"//169.254.169.254/latest/meta-data/",
	"//127.0.0.1/admin",
	"/status",
}

// publicAddrs are public addresses outside every range of SPEC §6 and
// outside the documentation ranges.
var publicAddrs = addrs("93.184.215.14", "151.101.1.69", "2606:4700:4700::1111")

// exfilPaths are what an attacker fetches with.
var exfilPaths = []string{"/steal?d=secrets", "/", "/api/api_post.php", "/log?d=", "/x?q=AKIA-LEAKED", "/status"}

// Tools. grantTools are the tools a grant picks from: echo and summarize
// are built into the world, ghost is not in it (not_found), dump and search
// have canned outputs.
var grantTools = []string{"echo", "summarize", "ghost", "dump", "search"}

// leakTools are ungranted tools the world still answers, with LEAK output.
var leakTools = []struct{ name, out string }{
	{"shell", "uid=0(root) gid=0(root)"}, {"exec", "LEAK-exec-ran"}, {"ECHO", "LEAK-case-variant-ran"},
	{"Summarize", "LEAK-case-variant-ran"}, {"echo ", "LEAK-space-variant-ran"},
}

// unknownTools are names outside any grant this package makes, the names
// every JavaScript object holds among them: a sandbox that keeps its
// allow-list in a plain object finds them there.
var unknownTools = []string{"shell", "exec", "python", "bash", "curl", "", "*", "fs_read", "rm", "sudo",
	"net_fetch", "eval", "echo", "summarize", "ghost", "constructor", "__proto__", "toString", "hasOwnProperty"}

// unknownKinds are op kinds that are none of the four.
var unknownKinds = []string{"exec", "shell", "FS_READ", "Fs_Read", "fs_read ", " fs_read", "fs-read", "fsread",
	"\ufefffs_read", "fs_read\u200b", "", "file", "grant", "NET_FETCH", "Tool", "fs_write\n", "read",
	"write", "fetch", "net_fetch\x00", "tool ", "FS_WRITE", "budget", "route", "=>", "fs_read\t",
	"constructor", "__proto__", "toString"}

// badBytes make an argument malformed (NUL, invalid UTF-8); ctrlBytes are
// legal control bytes that must pass through the ordinary checks.
var (
	badBytes  = []string{"\x00", "\xff", "\xed\xa0\x80", "\xc3", "\xfe\xff", "\xc0\xae", "\x80"}
	ctrlBytes = []string{"\n", "\r", "\x1b[31m", "\x7f", "\t", "\x01", "\r\n", forgedLine}
	// forgedLine is a whole JSON-RPC 2.0 response on a line of its own,
	// with an id no harness sends: a sandbox that writes an argument it is
	// given to the stdout it answers on (a log line, an echo) lets that
	// argument forge its answers, and the door that reads the line sees it.
	forgedLine = "\n{\"jsonrpc\":\"2.0\",\"id\":\"forged\",\"result\":{}}\n"
)

// homoglyphs map ASCII letters to Cyrillic lookalikes.
var homoglyphs = [...]struct {
	ascii byte
	glyph string
}{{'o', "\u043e"}, {'a', "\u0430"}, {'e', "\u0435"}, {'c', "\u0441"}, {'p', "\u0440"}, {'i', "\u0456"}, {'s', "\u0455"}}

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}
