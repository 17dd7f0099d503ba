package proxysut

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestBuiltinProfiles: every built-in profile parses, the default is
// among them, and it runs the example proxy with the grant's hosts file
// and the listen address.
func TestBuiltinProfiles(t *testing.T) {
	p, err := LoadProfile("")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != DefaultProfile || p.Mode != ModeAbsolute {
		t.Errorf("default profile %q mode %q, want %q %q", p.Name, p.Mode, DefaultProfile, ModeAbsolute)
	}
	l, err := p.render(launchVars{listen: "127.0.0.1:3128", hostsFile: "/d/hosts.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"-listen", "127.0.0.1:3128", "-allow-file", "/d/hosts.txt"}; !slices.Equal(l.args, want) {
		t.Errorf("args %q, want %q", l.args, want)
	}
	c, err := LoadProfile("egressproxy-connect")
	if err != nil || c.Mode != ModeConnect {
		t.Errorf("egressproxy-connect: mode %q, %v; want %q", c.Mode, err, ModeConnect)
	}
}

// TestProfileTemplates: arguments, environment and the config file are
// rendered with every function a profile may use.
func TestProfileTemplates(t *testing.T) {
	p, err := ParseProfile([]byte(`{"name": "x", "listen": "[::1]:8080",
		"args": ["--config={{config}}", "{{listen_host}}", "{{listen_port}}"],
		"env": {"PROXY_DIR": "{{dir}}"},
		"config": {"file": "etc/x.conf", "template": "{{range hosts}}allow {{.}}\n{{end}}{{range hosts_lower}}map {{.}}\n{{end}}listen {{listen}}\n"}}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.render(launchVars{listen: p.Listen, dir: "/d", config: "/d/etc/x.conf", hosts: []string{"a.test", "[::1]", "A.Test", "[::FFFF:1.2.3.4]"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--config=/d/etc/x.conf", "::1", "8080"}; !slices.Equal(l.args, want) {
		t.Errorf("args %q, want %q", l.args, want)
	}
	if want := []string{"PROXY_DIR=/d"}; !slices.Equal(l.env, want) {
		t.Errorf("env %q, want %q", l.env, want)
	}
	if want := "allow a.test\nallow [::1]\nallow A.Test\nallow [::FFFF:1.2.3.4]\nmap a.test\nmap [::1]\nmap [::ffff:1.2.3.4]\nlisten [::1]:8080\n"; l.config != want {
		t.Errorf("config %q, want %q", l.config, want)
	}
	// matches leaves out what a proxy's grammar cannot hold.
	p, err = ParseProfile([]byte(`{"name": "x", "config": {"file": "x.conf", "template": "{{range hosts}}{{if matches \"^[a-z0-9-]+(\\\\.[a-z0-9-]+)*$\" .}}domain={{.}}\n{{end}}{{end}}"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if l, err = p.render(launchVars{hosts: []string{"a.test", "[::1]", "dotted.example.", "b-c.test"}}); err != nil || l.config != "domain=a.test\ndomain=b-c.test\n" {
		t.Errorf("matches: config %q, %v", l.config, err)
	}
}

// TestProfileErrors: a profile that cannot be used is refused with
// ErrProfile and words that say what is wrong, and where in the file
// when it does not parse.
func TestProfileErrors(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"name": "x", "mode": "socks"}`, `mode "socks"`},
		{`{"name": "x", "listen": "localhost:3128"}`, `listen "localhost:3128"`},
		{`{"name": "x", "listen": "127.0.0.1:80"}`, `listen "127.0.0.1:80": port 80 is the world's`},
		{`{"name": "x", "listen": "[::]:80"}`, `listen "[::]:80": port 80 is the world's`},
		{`{"name": "x", "listen": "127.0.0.1:0"}`, `listen "127.0.0.1:0": port 0 is no port`},
		{`{"name": "x", "promises": ["refused"]}`, `unknown reason "refused"`},
		{`{"name": "x", "args": ["{{listen"]}`, `args[0]`},
		{`{"name": "x", "args": ["{{nosuch}}"]}`, `"nosuch" not defined`},
		{`{"name": "x", "config": {"file": "../x", "template": ""}}`, `not a path inside`},
		{`{"name": "x", "files": [{"file": "/etc/x", "template": ""}]}`, `files[0]: file "/etc/x" is not a path inside`},
		{`{"name": "x", "files": [{"file": "f", "template": "{{canonical}}"}]}`, `files[0]`},
		{`{"name": "x", "env": {"A=B": "c"}}`, `not a variable name`},
		{`{"name": "x", "args": ["{{if matches \"(\" \"a\"}}{{end}}"]}`, `args[0]:1:5: executing "args[0]" at <matches "(" "a">: error calling matches: error parsing regexp`},
		{"{\"name\": \"x\",\n  \"proxy\": \"y\"}", `line 2 column 3: json: unknown field "proxy"`},
		{`{"mode": "absolute"}`, `no name`},
		{`{"name": "x"} {}`, `line 1 column 15: data after`},
		{"{\n  \"name\": \"x\"\n  \"mode\": \"connect\"\n}", `line 3 column 3: invalid character`},
		{"", `no JSON object: the file is empty`},
		{`{"name": "x", "mcp": {"tool": ""}}`, `bad profile: mcp: no tool named`},
		{`{"name": "x", "mcp": {"tool": "f", "url": "a..b"}}`, `bad profile: mcp: f: argument "a..b" has an empty part`},
		{`{"name": "x", "refusals": ["(blocked"]}`, `bad profile: refusals: error parsing regexp`},
		{`{"name": "x", "mcp": {"tool": "f"}, "mode": "connect"}`, `mode and listen are a proxy's`},
		{`{"name": "x", "hosts": ["a.test:8080"]}`, `hosts: "a.test:8080" is not a host name`},
		{`{"name": "x", "hosts": ["127.0.0.1"]}`, `hosts: "127.0.0.1" is an IP address: hosts are names`},
		{`{"name": "x", "hosts": ["a.test", "A.test."]}`, `hosts: "A.test." is named twice`},
		{`{"name": "x", "headers": {"Proxy Authorization": "x"}}`, `headers: "Proxy Authorization" is not a header name`},
		{`{"name": "x", "headers": {"X-A": "a\r\nX-B: b"}}`, `headers: the value of X-A holds a byte a header cannot`},
		{`{"name": "x", "headers": {"host": "a"}}`, `headers: host is the harness's to send`},
		{`{"name": "x", "mcp": {"tool": "f"}, "headers": {"X-A": "a"}}`, `headers are sent to a proxy`},
		{`{"name": "x", "cwd": true}`, `cwd is a fetch server's`},
	} {
		_, err := ParseProfile([]byte(tc.json))
		if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrProfile saying %q", tc.json, err, tc.want)
		}
	}
}

// TestLoadProfileFile: a --profile value that names no built-in profile
// is a JSON file; its replay flags name it by its absolute path, a
// built-in one by its name, the default none. A value that is neither
// lists the built-in profiles, and says so of an MCP server's.
func TestLoadProfileFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.json")
	if err := os.WriteFile(file, []byte(`{"name": "mine", "mode": "connect"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	p, err := LoadProfile("p.json")
	if err != nil || p.Name != "mine" || p.Listen != DefaultListen {
		t.Fatalf("LoadProfile: %+v, %v", p, err)
	}
	for _, tc := range []struct {
		profile string
		want    []string
	}{{"", nil}, {DefaultProfile, nil}, {"egressproxy-connect", []string{"--profile", "egressproxy-connect"}}, {"p.json", []string{"--profile", file}}} {
		got, err := profileFlags(tc.profile)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("profileFlags(%q) = %q, %v; want %q", tc.profile, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{filepath.Join(dir, "missing.json"), "no such file, nor a built-in proxy profile (egressproxy, egressproxy-connect, "},
		{"server-filesystem", "an mcp: door's profile, not a proxy's; the proxy profiles are egressproxy, "},
	} {
		if _, err := LoadProfile(tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadProfile(%q): %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestAdapt: only net_fetch ops a URL carries as the model asks them are
// kept, each for its own reason; the grant keeps its hosts only, with the
// SPEC's default budgets.
func TestAdapt(t *testing.T) {
	sc, err := scenario.Parse("t.sbx", []byte(`grant fs_read /work
grant net a.test
grant net ::1
grant tool echo
budget ops 3
file /work/a x
dns 127.0.0.1 10.0.0.1

net_fetch a.test /status?x=1
net_fetch a.test:80 /status
net_fetch user@a.test /status
net_fetch a.test /a%2fb
net_fetch a.test /a/../b
net_fetch a.test status
net_fetch [::1] /
net_fetch ::1 /
net_fetch 127.1 /
net_fetch 127.0.0.1 /
net_fetch fe80::1%25eth0 /
net_fetch A.TEST /status
fs_read /work/a
tool echo hi
`))
	if err != nil {
		t.Fatal(err)
	}
	out := Adapt(sc)
	var kept []string
	for _, st := range out.Steps {
		kept = append(kept, st.Op.Args[0]+" "+st.Op.Args[1])
	}
	want := []string{"a.test /status?x=1", "::1 /", "127.1 /", "A.TEST /status"}
	if !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
	g := out.Grant
	if g.FSRead != nil || g.Tools != nil || !slices.Equal(g.NetHosts, []string{"a.test", "::1"}) || g.Budgets != scenario.New().Grant.Budgets {
		t.Errorf("grant %+v: want net hosts only, default budgets", g)
	}
	if out.World.Files != nil || len(out.World.DNS) != 1 {
		t.Errorf("world %+v: want no files, the dns line kept", out.World)
	}
	if Adapt(&scenario.Scenario{Steps: []scenario.Step{{Op: core.Op{Kind: core.OpRead, Args: []string{"/a"}}}}}) != nil {
		t.Error("a scenario of no fetch: adapted, want nil")
	}
}

// TestStricterReason: a refusal is counted under the first reason its
// host fits.
func TestStricterReason(t *testing.T) {
	for host, want := range map[string]string{
		"2001:db8::1":   door.ReasonIPv6Literal,
		"[2001:db8::1]": door.ReasonIPv6Literal,
		"3221225728":    door.ReasonIPv4Spelling,
		"0xcb.0.113.1":  door.ReasonIPv4Spelling,
		"a.test..":      door.ReasonUnresolvable,
		"*.a.test":      door.ReasonUnresolvable,
		"1.2.3.4.5":     door.ReasonUnresolvable,
		"a.test.":       door.ReasonRefusedAllowed,
		"203.0.113.1":   door.ReasonRefusedAllowed,
		"xn--e1a.test":  door.ReasonRefusedAllowed,
	} {
		if got := door.NetReason(host); got != want {
			t.Errorf("door.NetReason(%q) = %q, want %q", host, got, want)
		}
	}
}

// TestWireHosts: a proxy is given the grant's hosts as a URL carries
// them, and its pool tells grants apart by them, order and repeats aside.
func TestWireHosts(t *testing.T) {
	if got, want := wireHosts([]string{"a.test", "::1", "[::2]", "[::1]", "::2"}), []string{"a.test", "[::1]", "[::2]"}; !slices.Equal(got, want) {
		t.Errorf("wireHosts = %q, want %q", got, want)
	}
	if hostsKey([]string{"b", "a", "b"}) != hostsKey([]string{"a", "b"}) || hostsKey([]string{"a"}) == hostsKey([]string{"a", "b"}) {
		t.Error("hostsKey: the same hosts differ, or other hosts agree")
	}
}

// TestDocumentedProfile: the profile file docs/real-sandboxes.md shows
// parses, and renders its config file from the grant.
func TestDocumentedProfile(t *testing.T) {
	p, err := LoadProfile(filepath.Join("..", "..", "docs", "examples", "proxy-profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.render(launchVars{listen: p.Listen, config: "/d/proxy.conf", hosts: []string{"a.test", "[::1]"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "listen 8080\nallow a.test\nallow [::1]\ndeny all\n"; l.config != want || p.Mode != ModeConnect {
		t.Errorf("config %q, mode %q; want %q, %q", l.config, p.Mode, want, ModeConnect)
	}
}

// TestNginxProfile: the nginx profile docs/real-sandboxes.md shows parses
// and renders an allow-list map of the grant's hosts, each once, quoted
// as regular expressions.
func TestNginxProfile(t *testing.T) {
	p, err := LoadProfile(filepath.Join("..", "..", "docs", "examples", "nginx-profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.render(launchVars{listen: p.Listen, dir: "/d", config: "/d/nginx.conf", hosts: []string{"a.test", "b+c.test"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"resolver 127.0.0.1 valid=1s;", `"~*^a\.test$" 1;`, `"~*^b\+c\.test$" 1;`, "listen 127.0.0.1:3128;", "pid /d/nginx.pid;"} {
		if !strings.Contains(l.config, want) {
			t.Errorf("nginx.conf lacks %s:\n%s", want, l.config)
		}
	}
}

// TestProfileFiles: a profile's other files are rendered and written in
// the proxy's directory beside its config file, where the templates name
// them by {{dir}}.
func TestProfileFiles(t *testing.T) {
	p, err := ParseProfile([]byte(`{"name": "x", "args": ["--acl", "{{dir}}/etc/acl"],
		"config": {"file": "x.conf", "template": "acl {{dir}}/etc/acl\n"},
		"files": [{"file": "etc/acl", "template": "{{range hosts}}^{{regexp_quote .}}$\n{{end}}"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l, err := prepareDir(dir, p, []string{"a.test", "b+c.test"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--acl", dir + "/etc/acl"}; !slices.Equal(l.args, want) {
		t.Errorf("args %q, want %q", l.args, want)
	}
	for file, want := range map[string]string{"x.conf": "acl " + dir + "/etc/acl\n", "etc/acl": "^a\\.test$\n^b\\+c\\.test$\n"} {
		got, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", file, got, err, want)
		}
	}
}

// TestHostForms: the template functions write a granted host as a
// proxy's configuration wants it.
func TestHostForms(t *testing.T) {
	for _, tc := range []struct{ host, canonical, unbracketed, reason string }{
		{"a.test", "a.test", "a.test", "a name in lower case is its own form"},
		{"API.Example.ORG", "api.example.org", "API.Example.ORG", "an ACL checked by IDNA lookup wants lower case"},
		{"dotted.example.", "dotted.example.", "dotted.example.", "one final dot is kept: IDNA keeps it"},
		{"[::1]", "::1", "::1", "an IPv6 literal without its URL brackets"},
		{"[0:0:0:0:0:0:0:1]", "::1", "0:0:0:0:0:0:0:1", "net.IP prints an address compressed"},
		{"[::ffff:7f00:1]", "127.0.0.1", "::ffff:7f00:1", "net.IP prints an IPv4-mapped address as its IPv4 address"},
		{"[64:FF9B::1]", "64:ff9b::1", "64:FF9B::1", "net.IP prints lower case"},
		{"127.0.0.1", "127.0.0.1", "127.0.0.1", "a dotted quad is an address"},
		{"127.1", "127.1", "127.1", "an inet_aton spelling is a name to Go's net package"},
		{"0X7F000001", "0x7f000001", "0X7F000001", "so is a hexadecimal one"},
		{"[fe80::1%eth0]", "", "fe80::1%eth0", "no ACL entry holds a zone"},
		{"a.test..", "", "a.test..", "an empty label"},
		{"", "", "", "no host"},
		{"-a.test", "", "-a.test", "a label that starts with a hyphen fails IDNA's check"},
		{"ab--c.test", "", "ab--c.test", "hyphens as third and fourth bytes fail IDNA's check"},
		{"xn--e1a.test", "", "xn--e1a.test", "an A-label is left out rather than decoded"},
		{"*.a.test", "", "*.a.test", "a glob would grant every subdomain"},
		{"a!b.test", "", "a!b.test", "a byte no DNS label holds"},
		{"r_1.test", "r_1.test", "r_1.test", "an underscore is a byte names hold"},
	} {
		if got := canonicalHost(tc.host); got != tc.canonical {
			t.Errorf("canonicalHost(%q) = %q, want %q: %s", tc.host, got, tc.canonical, tc.reason)
		}
		if got := spec.Unbracket(tc.host); got != tc.unbracketed {
			t.Errorf("Unbracket(%q) = %q, want %q", tc.host, got, tc.unbracketed)
		}
	}
	for host, want := range map[string]bool{"127.1": true, "2130706433": true, "[::1]": true, "::1": true, "10.0.0.1.": true,
		"a.test": false, "1.2.3.4.5": false, "0x": false, "": false} {
		if got := isIP(host); got != want {
			t.Errorf("isIP(%q) = %v, want %v", host, got, want)
		}
	}
	for host, want := range map[string]string{"dotted.example.": "dotted.example", "a.test..": "a.test.", "a.test": "a.test", "10.0.0.1.": "10.0.0.1"} {
		if got := trimDot(host); got != want {
			t.Errorf("trimDot(%q) = %q, want %q: SPEC §6 ignores one final dot", host, got, want)
		}
	}
}

// TestExitNamesRenderedHosts: a proxy that exited before it listened is
// told apart from a crash by the hosts its configuration was rendered for
// (a host it cannot hold is the profile's doing); one still running, or
// rendered for none, adds nothing.
func TestExitNamesRenderedHosts(t *testing.T) {
	exited := make(chan struct{})
	px := &proxy{exited: exited}
	if got := renderedFor(px, []string{"a.test."}); got != "" {
		t.Errorf("a proxy still running: %q, want nothing", got)
	}
	close(exited)
	if got := renderedFor(px, nil); got != "" {
		t.Errorf("no hosts: %q, want nothing", got)
	}
	got := renderedFor(px, []string{"dotted.example.", "b", "c", "d", "e", "f", "g", "h", "i", "j"})
	if !strings.Contains(got, `hosts "dotted.example.", "b", "c", "d", "e", "f", "g", "h" and 2 more: `) || !strings.Contains(got, "{{trim_dot .}}") {
		t.Errorf("%q: want the first 8 hosts quoted, the rest counted, and how a template leaves such a host out", got)
	}
}

// TestRealProxyProfiles: the built-in profiles of real proxies render the
// grant as each proxy reads it: smokescreen's ACL lists each host in its
// canonical form and leaves out what it cannot hold, tinyproxy's filter
// anchors each host, quoted, without brackets, squid's ACL lists the
// hosts without brackets, but for those smokescreen's would leave out;
// Traffic Server's remap rules list the hosts in lower case, since it
// will not start on two that differ in case alone; squid and Traffic
// Server, which keep a DNS cache, get a proxy per sandbox.
func TestRealProxyProfiles(t *testing.T) {
	hosts := []string{"API.Example.ORG", "[::1]", "a+b.test", "127.1"}
	for _, tc := range []struct {
		name, file string
		fresh      bool
		want       []string
	}{
		{"smokescreen", "acl.yaml", false, []string{"\n    - \"api.example.org\"\n    - \"::1\"\n    - \"127.1\"\n"}},
		{"tinyproxy", "filter", false, []string{"^API\\.Example\\.ORG$\n^::1$\n^a\\+b\\.test$\n^127\\.1$\n"}},
		{"squid", "squid.conf", true, []string{"acl granted dstdomain -n API.Example.ORG ::1 127.1 .sbxfuzz-none.invalid\n"}},
		{"trafficserver", "remap.config", true, []string{"map http://api.example.org/ http://api.example.org/\nmap http://[::1]/ http://[::1]/\nmap http://a+b.test/ http://a+b.test/\nmap http://127.1/ http://127.1/\n"}},
	} {
		p, err := LoadProfile(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := prepareDir(dir, p, hosts); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(got), w) {
				t.Errorf("%s: %s is\n%s\nwant it to hold %q", tc.name, tc.file, got, w)
			}
		}
		if p.Fresh != tc.fresh {
			t.Errorf("%s: fresh %v, want %v", tc.name, p.Fresh, tc.fresh)
		}
	}
}

// TestReadsHosts: a profile whose launch names the granted hosts (in a
// list, a file, a config) reads them; one that names none (a fetch
// server without an allow-list) does not, and gets one server for every
// grant.
func TestReadsHosts(t *testing.T) {
	for _, tc := range []struct {
		profile string
		want    bool
	}{
		{`{"name": "n", "mcp": {"tool": "fetch"}}`, false},
		{`{"name": "n", "mcp": {"tool": "fetch"}, "args": ["--listen", "{{listen}}"]}`, false},
		{`{"name": "n", "mcp": {"tool": "fetch"}, "env": {"ALLOW": "{{range hosts}}{{.}},{{end}}"}}`, true},
		{`{"name": "n", "args": ["-allow-file", "{{hosts_file}}"]}`, true},
		{`{"name": "n", "files": [{"file": "acl", "template": "{{range hosts}}{{.}}\n{{end}}"}]}`, true},
	} {
		p, err := ParseProfile([]byte(tc.profile))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.readsHosts(); got != tc.want {
			t.Errorf("%s: readsHosts %v, want %v", tc.profile, got, tc.want)
		}
	}
}

// TestAdaptOpen: a sandbox given no hosts is granted every host its
// scenario asks, and egress_denied is a kind it never gives; one given
// its hosts keeps the scenario's grant.
func TestAdaptOpen(t *testing.T) {
	sc, err := scenario.Parse("t.sbx", []byte("grant net a.test\n\nnet_fetch b.test /x\nnet_fetch a.test /\nfs_read /etc/passwd\nnet_fetch b.test /y\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := AdaptOpen(sc)
	if want := []string{"a.test", "b.test"}; out == nil || !slices.Equal(out.Grant.NetHosts, want) || len(out.Steps) != 3 {
		t.Fatalf("AdaptOpen: %v", out)
	}
	// The hosts a redirect's Location names are granted too: a server
	// that follows asks them next. A relative Location names none, nor
	// does one a URL cannot carry.
	redirects, err := scenario.Parse("t.sbx", []byte(`redirect a.test /1 http://evil.test:8080/x
redirect a.test /2 http://[::1]/
redirect a.test /3 //m
redirect a.test /4 /status
redirect a.test /5 "http://a b/"
route a.test /6 http://c.test/

net_fetch a.test /1
`))
	if err != nil {
		t.Fatal(err)
	}
	if out, want := AdaptOpen(redirects), []string{"a.test", "evil.test", "::1", "m"}; out == nil || !slices.Equal(out.Grant.NetHosts, want) {
		t.Errorf("AdaptOpen of redirects: grant %v, want %q", out, want)
	}
	for _, tc := range []struct {
		profile string
		open    bool
	}{
		{`{"name": "open", "mcp": {"tool": "fetch"}}`, true},
		{`{"name": "listed", "mcp": {"tool": "fetch"}, "args": ["{{hosts_file}}"]}`, false},
	} {
		p, err := ParseProfile([]byte(tc.profile))
		if err != nil {
			t.Fatal(err)
		}
		tg, err := ServerTarget("server", "", p, Timeouts{})
		if err != nil {
			t.Fatal(err)
		}
		_, na := tg.KindsNotApplicable["egress_denied"]
		if grant := tg.Adapt(sc).Grant.NetHosts; na != tc.open || (len(grant) == 2) != tc.open {
			t.Errorf("%s: egress_denied n/a %v, grant %q; want n/a and every host asked only for a sandbox given no hosts (%v)", p.Name, na, grant, tc.open)
		}
	}
}

// TestAdaptFixed: for a server with hosts of its own, the scenario's first
// granted hosts become those wherever it names them — its ops byte for
// byte, its dns lines, routes and redirect Locations as the world matches
// them — the grant is the server's hosts, a scenario that names one of
// them already is left out, and an adapted scenario adapts to itself.
func TestAdaptFixed(t *testing.T) {
	sc, err := scenario.Parse("t.sbx", []byte(`grant net api.test
grant net b.test
dns API.test. 10.0.0.1
route api.test /x hello
redirect b.test /go http://API.TEST:8080/x
redirect api.test /up http://elsewhere.test/

net_fetch api.test /x
net_fetch API.test /x
net_fetch b.test /go
net_fetch api.test /up
`))
	if err != nil {
		t.Fatal(err)
	}
	out := AdaptFixed(sc, []string{"site.test"})
	want := `grant net site.test
route site.test /x hello
redirect b.test /go http://site.test:8080/x
redirect site.test /up http://elsewhere.test/
dns site.test 10.0.0.1

net_fetch site.test /x
net_fetch API.test /x
net_fetch b.test /go
net_fetch site.test /up
`
	if out == nil {
		t.Fatal("AdaptFixed left the scenario out")
	}
	if diff := cmp.Diff(want, string(out.Format())); diff != "" {
		t.Errorf("AdaptFixed (-want +got):\n%s", diff)
	}
	if again := AdaptFixed(out, []string{"site.test"}); again == nil || string(again.Format()) != string(out.Format()) {
		t.Errorf("adapted again: %v, want it as it was", again)
	}
	named, err := scenario.Parse("t.sbx", []byte("grant net api.test\nroute SITE.test / x\n\nnet_fetch api.test /\n"))
	if err != nil {
		t.Fatal(err)
	}
	if out := AdaptFixed(named, []string{"site.test"}); out != nil {
		t.Errorf("a scenario naming the server's host already: %v, want it left out", out)
	}
}

// TestStderrTail: a proxy that failed is quoted by the line of its stderr
// that says why, not by what a runtime writes after it.
func TestStderrTail(t *testing.T) {
	node := "node:events:497\n      throw er; // Unhandled 'error' event\n      ^\n\nError: listen EADDRINUSE: address already in use 127.0.0.1:3128\n" +
		"    at Server.setupListenHandle [as _listen2] (node:net:1908:16)\n    at listenInCluster (node:net:1965:12)\n" +
		"Emitted 'error' event on Server instance at:\n    at emitErrorNT (node:net:1944:8) {\n  code: 'EADDRINUSE',\n  errno: -98\n}\n\nNode.js v20.20.2\n"
	python := "Traceback (most recent call last):\n  File \"/p.py\", line 3, in <module>\n    s.bind(a)\nOSError: [Errno 98] Address already in use\n"
	gopanic := "panic: no hosts file\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n"
	for _, tc := range []struct{ in, want string }{
		{node, ": Error: listen EADDRINUSE: address already in use 127.0.0.1:3128"},
		{python, ": OSError: [Errno 98] Address already in use"},
		{gopanic, ": panic: no hosts file"},
		{"listening failed on 3128\r\n", ": listening failed on 3128"},
		{"  \n", ""},
	} {
		if got := stderrTail(tc.in); got != tc.want {
			t.Errorf("stderrTail(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestProxyWords: a proxy's own answer is said by its status and its
// body's title or first words, tags, styles and scripts taken out and a
// long body cut; the world's answer, relayed, and a connection closed
// without one say nothing.
func TestProxyWords(t *testing.T) {
	long := strings.Repeat("denied ", 40)
	for _, tc := range []struct {
		a    answer
		want string
	}{
		{answer{status: 200, world: true, body: "hello"}, ""},
		{answer{closed: true}, "closed the connection without an answer"},
		{answer{closed: true, tunnelStatus: 200}, `200 OK to CONNECT, then closed at the request in the tunnel (a refusal in it, or a wait for TLS: try "mode": "absolute")`},
		{answer{status: 403, body: "host not allowed: a.test\n"}, "403 Forbidden: host not allowed: a.test"},
		{answer{status: 502}, "502 Bad Gateway"},
		{answer{status: 599, body: "x"}, "599: x"},
		{answer{status: 403, body: "<!DOCTYPE html><html><head><title>ERROR: The requested URL could not be retrieved</title><style>p{}</style></head><body><h1>Access Denied</h1></body></html>"},
			"403 Forbidden: ERROR: The requested URL could not be retrieved"},
		{answer{status: 403, body: "<html><head><STYLE type=\"text/css\">body { color: red }</STYLE><script>var x = 1;</script></head><body><!-- a note --><p>Blocked by\n  policy</p></body></html>"},
			"403 Forbidden: Blocked by policy"},
		{answer{status: 403, body: long}, "403 Forbidden: " + strings.TrimSpace(long)[:maxProxyWords] + "…"},
		{answer{status: 403, body: "<HTML><HEAD><TITLE lang=en>Access\n Denied</TITLE></HEAD><BODY>Generated 12:00:01</BODY></HTML>"}, "403 Forbidden: Access Denied"},
	} {
		if got := proxyWords(tc.a); got != tc.want {
			t.Errorf("proxyWords(%+v) = %q, want %q", tc.a, got, tc.want)
		}
	}
}
