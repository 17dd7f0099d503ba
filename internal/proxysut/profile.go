package proxysut

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/netip"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// Profile says how one HTTP forward proxy is started for a grant and
// asked for a fetch (SPEC §14, "Doors"). A Profile is a plain value once
// parsed; its templates are checked by ParseProfile.
//
// Args, the values of Env and Config's template are text/template
// templates, with these functions: {{listen}} the address the proxy must
// listen on ("127.0.0.1:3128"), {{listen_host}} and {{listen_port}} its
// two halves, {{hosts_file}} a file of the grant's net hosts, one a line,
// byte for byte, {{hosts}} those hosts as a list ({{range hosts}}), {{dir}}
// a directory of the proxy's own, {{config}} the rendered config file's
// path; and, to write a host as a proxy's configuration wants it,
// {{canonical HOST}}, {{unbracket HOST}} and {{regexp_quote TEXT}}
// (canonicalHost, spec.Unbracket, regexp.QuoteMeta).
type Profile struct {
	// Name names the proxy in messages and reproduce lines.
	Name string `json:"name"`
	// Command is put before the --sut command: ["python3"] runs a script.
	Command []string `json:"command,omitempty"`
	// Args are put after the --sut command.
	Args []string `json:"args,omitempty"`
	// Env is set in the proxy's environment, over the harness's own
	// (which the proxy inherits: EGRESSPROXY_DEFECT, say).
	Env map[string]string `json:"env,omitempty"`
	// Listen is the address the proxy is told to listen on, in its own
	// network namespace; empty is DefaultListen. Its port is neither 0
	// nor one the world listens on there.
	Listen string `json:"listen,omitempty"`
	// Config, when set, is a file rendered in the proxy's directory
	// before it starts.
	Config *ConfigFile `json:"config,omitempty"`
	// Files are more files rendered in the proxy's directory before it
	// starts, for a proxy that reads more than one (an ACL or a filter
	// file beside its configuration): a template names one as
	// {{dir}}/FILE.
	Files []ConfigFile `json:"files,omitempty"`
	// Mode is how a fetch is asked: ModeAbsolute ("GET http://host/path",
	// the default) or ModeConnect ("CONNECT host:80", then the GET
	// through the tunnel).
	Mode string `json:"mode,omitempty"`
	// Fresh says the proxy keeps what it learnt from one fetch for the
	// next (a DNS cache, pooled connections to servers): then every
	// sandbox — a check's run, its replay, each scenario the minimizer
	// tries — gets a proxy started for it alone, so that a finding, its
	// replay and its reproducer do not hang on fetches made before them.
	// It costs a proxy start per sandbox. Otherwise a proxy serves every
	// sandbox of its grant, a few thousand fetches (SPEC §14 judges each
	// op on what it made the proxy do, which a proxy that keeps nothing
	// does the same however many fetches came before).
	Fresh bool `json:"fresh,omitempty"`
	// Cwd says a fetch server (MCP) runs in its own directory ({{dir}}),
	// not the harness's working directory: one that keeps what it
	// fetched in files there (a page cache in ./.cache) then keeps it
	// for itself, removed with it, and shares it with no other run.
	Cwd bool `json:"cwd,omitempty"`
	// MCP, when set, says the command is not a proxy but an MCP server
	// over stdio with a tool that fetches a URL (an agent's fetch tool):
	// each net_fetch is a tools/call of it with the URL http://HOST/PATH,
	// judged by what the server's namespace saw. Listen and Mode do not
	// apply; the grant's hosts reach the server through Args, Env, Config
	// and Files as a proxy's do, or not at all (a server without an
	// allow-list).
	MCP *FetchTool `json:"mcp,omitempty"`
	// Hosts, when set, are the hosts the proxy or server allows by
	// itself, whatever it is given (a fetch tool for one site:
	// ["deepwiki.com"]): each scenario's first granted hosts become
	// these (AdaptFixed), so that what it asks reaches them, and the
	// grant is these hosts.
	Hosts []string `json:"hosts,omitempty"`
	// Promises lists the reasons (StricterReasons, or PromisesAll) for
	// which the proxy promises to let through what the model allows: a
	// refusal of such an op is a verdict-matches-model finding. Any other
	// refusal of an op the model allows is stricter (SPEC §14): counted,
	// not judged. Empty: the proxy promises nothing.
	Promises []string `json:"promises,omitempty"`
	// Refusals lists regular expressions (RE2) of the body of an answer
	// of the proxy's own (no world header) with a 1xx or 2xx status that
	// is a refusal all the same: a block page served with 200
	// (e2guardian's default). Such an answer matching none is a total
	// finding, as an answer the world did not give.
	Refusals []string `json:"refusals,omitempty"`
	// Headers are sent to the proxy with every request it is asked (the
	// GET, or the CONNECT that opens its tunnel), not through the tunnel:
	// a proxy that wants credentials (Proxy-Authorization) refuses
	// every fetch without them.
	Headers map[string]string `json:"headers,omitempty"`
	// IgnoreHosts lists regular expressions (RE2) of names the sandbox's
	// own machinery asks, whatever the op (a browser's update, clock and
	// safe-browsing checks: clients2.google.com): the namespace's DNS
	// server answers them nothing and journals nothing, so that such
	// traffic is not taken for the op's, and a scenario that names a
	// matching host is not sent. A name is matched in lower case, without
	// its trailing dot.
	IgnoreHosts []string `json:"ignore_hosts,omitempty"`
}

// tokenBytes are the bytes of an HTTP header's name (RFC 9110's token).
const tokenBytes = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// proxyHeaders is p's Headers as the lines of a request, sorted by name:
// the same bytes for every request.
func (p Profile) proxyHeaders() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(p.Headers)) {
		b.WriteString(k + ": " + p.Headers[k] + "\r\n")
	}
	return b.String()
}

// ignored reports whether the sandbox's DNS server is to answer name
// nothing, journaling nothing (IgnoreHosts); name is in lower case
// without its trailing dot, as the DNS server gets it.
func (p Profile) ignored(name string) bool { return mcp.MatchesAny(p.IgnoreHosts, name) }

// refusal reports whether body, of an answer of the proxy's own, is a
// refusal by the profile's Refusals.
func (p Profile) refusal(body string) bool {
	return mcp.MatchesAny(p.Refusals, body)
}

// FetchTool is an MCP server's tool that fetches a URL.
type FetchTool struct {
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// URL names the argument that holds the URL, dotted to nest it
	// ("request.url"); empty is "url".
	URL string `json:"url,omitempty"`
	// Args are constant arguments, by dotted name, each a JSON value:
	// {"raw": true, "max_length": 100000}.
	Args map[string]json.RawMessage `json:"args,omitempty"`
}

// ConfigFile is a file rendered from a template into the proxy's
// directory.
type ConfigFile struct {
	// File is the file's path relative to the proxy's directory.
	File string `json:"file"`
	// Template is its text, a text/template (see Profile).
	Template string `json:"template"`
}

// The ways a fetch is asked of a proxy (Profile.Mode).
const (
	ModeAbsolute = "absolute"
	ModeConnect  = "connect"
)

// DefaultListen is where a proxy listens when its profile does not say:
// in a network namespace of its own, no port is taken.
const DefaultListen = "127.0.0.1:3128"

// ErrProfile is what every profile error unwraps to, a proxy's or a
// fetch server's.
var ErrProfile = errors.New("bad profile")

//go:embed profiles/*.json
var builtin embed.FS

// BuiltinProfiles are the profiles a --profile value may name instead of
// a file, by Name, sorted by it; the first, egressproxy, is the default.
func BuiltinProfiles() []Profile {
	var out []Profile
	for _, f := range builtinFiles() {
		out = append(out, f.profile)
	}
	return out
}

// BuiltinJSON is the JSON of the built-in profile named name, a proxy's or
// a fetch server's, as it is written, and false when none has that name.
func BuiltinJSON(name string) ([]byte, bool) {
	for _, f := range builtinFiles() {
		if f.profile.Name == name {
			return f.data, true
		}
	}
	return nil, false
}

// builtinFile is a built-in profile and the JSON it is read from.
type builtinFile struct {
	profile Profile
	data    []byte
}

// builtinFiles reads the built-in profiles, sorted by Name.
func builtinFiles() []builtinFile {
	entries, _ := builtin.ReadDir("profiles")
	var out []builtinFile
	for _, e := range entries {
		data, _ := builtin.ReadFile(path.Join("profiles", e.Name()))
		p, err := ParseProfile(data)
		if err != nil {
			panic(fmt.Sprintf("proxysut: built-in profile %s: %v", e.Name(), err)) // a build mistake, caught by the tests
		}
		out = append(out, builtinFile{p, data})
	}
	slices.SortFunc(out, func(a, b builtinFile) int { return strings.Compare(a.profile.Name, b.profile.Name) })
	return out
}

// BuiltinNames are the names of the built-in proxies' profiles, in the
// order of BuiltinProfiles.
func BuiltinNames() []string { return builtinNames(false) }

// ServerNames are the names of the built-in MCP fetch servers' profiles
// (Profile.MCP), the mcp: door's, in the order of BuiltinProfiles.
func ServerNames() []string { return builtinNames(true) }

func builtinNames(servers bool) []string {
	var names []string
	for _, p := range BuiltinProfiles() {
		if (p.MCP != nil) == servers {
			names = append(names, p.Name)
		}
	}
	return names
}

// LoadServerProfile reads the profile an mcp: door's --profile value
// names when it is an MCP fetch server's: a built-in one by name, or a
// JSON file whose object has an "mcp" field. ok is false for any other
// value (a filesystem server's profile, which the mcp: door reads
// itself, or a file that does not read, whose error it gives).
func LoadServerProfile(name string) (p Profile, ok bool, err error) {
	if slices.Contains(ServerNames(), name) {
		p, err = LoadProfile(name)
		return p, true, err
	}
	if name == "" || slices.Contains(BuiltinNames(), name) {
		return Profile{}, false, nil
	}
	data, err := fsutil.ReadInput(name)
	if err != nil {
		return Profile{}, false, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil || fields["mcp"] == nil {
		return Profile{}, false, nil
	}
	if p, err = ParseProfile(data); err != nil {
		return Profile{}, true, fmt.Errorf("profile %s: %w", name, err)
	}
	return p, true, nil
}

// DefaultProfile is the name of the profile used when none is given.
const DefaultProfile = "egressproxy"

// LoadProfile reads the profile a --profile value names: a built-in one
// by name, else a JSON file; "" is DefaultProfile.
func LoadProfile(name string) (Profile, error) {
	if name == "" {
		name = DefaultProfile
	}
	for _, p := range BuiltinProfiles() {
		if p.Name == name {
			return p, nil
		}
	}
	// ReadInput refuses a named pipe or a device at once rather than
	// wait for a writer, and bounds the size.
	data, err := fsutil.ReadInput(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Profile{}, fmt.Errorf("profile %s: %s", name, notAProfile(name))
	case err != nil:
		return Profile{}, fmt.Errorf("profile: %v", err)
	}
	p, err := ParseProfile(data)
	if err != nil {
		return Profile{}, fmt.Errorf("profile %s: %w", name, err)
	}
	return p, nil
}

// notAProfile says why name, which is no file, names no proxy profile:
// an MCP server's profile, or no built-in one; either way it lists the
// built-in ones.
func notAProfile(name string) string {
	builtins := strings.Join(BuiltinNames(), ", ")
	if _, ok := mcp.LookupProfile(name); ok {
		return fmt.Sprintf("an mcp: door's profile, not a proxy's; the proxy profiles are %s, or a JSON file", builtins)
	}
	return fmt.Sprintf("no such file, nor a built-in proxy profile (%s)", builtins)
}

// ParseProfile reads a profile written as JSON: the fields of Profile
// under their JSON names, unknown fields refused. Errors unwrap to
// ErrProfile and say what is wrong.
func ParseProfile(data []byte) (Profile, error) {
	var p Profile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Profile{}, fmt.Errorf("%w: %v", ErrProfile, door.JSONError(data, dec.InputOffset(), err, &p))
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		after := end + int64(len(data[end:])-len(bytes.TrimLeft(data[end:], " \t\r\n")))
		return Profile{}, fmt.Errorf("%w: %v", ErrProfile, door.JSONError(data, after, errors.New("data after the profile object"), &p))
	}
	if p.MCP != nil && (p.Mode != "" || p.Listen != "") {
		return Profile{}, fmt.Errorf("%w: mode and listen are a proxy's: an MCP server (mcp) is spoken to over stdio", ErrProfile)
	}
	if p.Mode == "" {
		p.Mode = ModeAbsolute
	}
	if p.Listen == "" {
		p.Listen = DefaultListen
	}
	if p.MCP != nil && p.MCP.URL == "" {
		p.MCP.URL = "url"
	}
	if err := p.check(); err != nil {
		return Profile{}, fmt.Errorf("%w: %v", ErrProfile, err)
	}
	return p, nil
}

// checkListen reports what makes listen no address a proxy can be told
// to listen on: not an IP address and a port, port 0 (the harness must
// know where to reach it), or a port the world listens on in the proxy's
// namespace, where the harness would reach its own listener and judge it
// as the proxy's answers.
func checkListen(listen string) error {
	ap, err := netip.ParseAddrPort(listen)
	switch {
	case err != nil:
		return fmt.Errorf("listen %q: an IP address and a port, such as %s: %v", listen, DefaultListen, err)
	case ap.Port() == 0:
		return fmt.Errorf("listen %q: port 0 is no port the harness can reach the proxy on; name one, such as %s", listen, DefaultListen)
	case slices.Contains(proxyWorldPorts, ap.Port()):
		return fmt.Errorf("listen %q: port %d is the world's, which answers the proxy's fetches in its namespace; the proxy must listen on another port, such as %s", listen, ap.Port(), DefaultListen)
	}
	return nil
}

// check reports what makes p unusable.
func (p Profile) check() error {
	switch {
	case p.Name == "":
		return errors.New("no name")
	case p.Mode != ModeAbsolute && p.Mode != ModeConnect:
		return fmt.Errorf("mode %q: want %q or %q", p.Mode, ModeAbsolute, ModeConnect)
	}
	if err := checkListen(p.Listen); err != nil {
		return err
	}
	if c := p.Config; c != nil && !insideDir(c.File) {
		return fmt.Errorf("config: file %q is not a path inside the proxy's directory", c.File)
	}
	for i, c := range p.Files {
		if !insideDir(c.File) {
			return fmt.Errorf("files[%d]: file %q is not a path inside the proxy's directory", i, c.File)
		}
	}
	for k := range p.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env: %q is not a variable name", k)
		}
	}
	for _, re := range p.Refusals {
		if _, err := regexp.Compile(re); err != nil {
			return fmt.Errorf("refusals: %v", err)
		}
	}
	for _, re := range p.IgnoreHosts {
		if _, err := regexp.Compile(re); err != nil {
			return fmt.Errorf("ignore_hosts: %v", err)
		}
	}
	for k, v := range p.Headers {
		switch {
		case k == "" || strings.Trim(k, tokenBytes) != "":
			return fmt.Errorf("headers: %q is not a header name", k)
		case strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }):
			return fmt.Errorf("headers: the value of %s holds a byte a header cannot (a line break, a control byte)", k)
		case slices.Contains([]string{"host", "connection", "content-length", "transfer-encoding"}, strings.ToLower(k)):
			return fmt.Errorf("headers: %s is the harness's to send", k)
		case p.MCP != nil:
			return errors.New("headers are sent to a proxy: an MCP server (mcp) is asked over stdio")
		}
	}
	if p.Cwd && p.MCP == nil {
		return errors.New("cwd is a fetch server's (mcp): a proxy runs in the harness's working directory, and writes where its configuration says")
	}
	if p.MCP != nil {
		if p.MCP.Tool == "" {
			return errors.New("mcp: no tool named")
		}
		if _, err := p.serverProfile(nil); err != nil {
			return fmt.Errorf("mcp: %s", strings.TrimPrefix(err.Error(), mcp.ErrProfile.Error()+": "))
		}
	}
	seen := map[string]bool{}
	for _, h := range p.Hosts {
		switch {
		case isIPSpelling(h):
			return fmt.Errorf("hosts: %q is an IP address: hosts are names, which a scenario's granted hosts are renamed to with their dns lines (a server that allows an address by itself is given no hosts, and its campaign grants every host a scenario asks)", h)
		case !spec.URLCarriesHost(h):
			return fmt.Errorf("hosts: %q is not a host name a URL carries as it is", h)
		case seen[spec.NormalizeHost(h)]:
			return fmt.Errorf("hosts: %q is named twice", h)
		}
		seen[spec.NormalizeHost(h)] = true
	}
	for _, r := range p.Promises {
		if r != PromisesAll && !slices.Contains(StricterReasons(), r) {
			return fmt.Errorf("promises: unknown reason %q (want %s or %s)", r, strings.Join(StricterReasons(), ", "), PromisesAll)
		}
	}
	_, err := p.render(launchVars{listen: p.Listen, dir: "/dir", hostsFile: "/dir/hosts", config: "/dir/config", hosts: []string{"a.test"}})
	return err
}

// readsHosts reports whether p gives the proxy the granted hosts at all:
// whether its launch renders differently for other hosts. A server
// without an allow-list (an MCP fetch tool that fetches whatever it is
// asked) is then started once for every grant.
func (p Profile) readsHosts() bool {
	one, err1 := p.render(launchVars{listen: p.Listen, dir: "/dir", hostsFile: "/dir/hosts-1", config: "/dir/config", hosts: []string{"a.test"}})
	two, err2 := p.render(launchVars{listen: p.Listen, dir: "/dir", hostsFile: "/dir/hosts-2", config: "/dir/config", hosts: []string{"b.test", "c.test"}})
	return err1 != nil || err2 != nil || !slices.Equal(one.args, two.args) || !slices.Equal(one.env, two.env) ||
		one.config != two.config || !slices.Equal(one.files, two.files)
}

// usesTmp reports whether a template of p names {{tmp}}, for which a
// directory is made.
func (p Profile) usesTmp() bool {
	const mark = "\x00tmp"
	l, err := p.render(launchVars{listen: p.Listen, dir: "/dir", hostsFile: "/dir/hosts", config: "/dir/config", tmp: mark})
	if err != nil {
		return false
	}
	return slices.ContainsFunc(slices.Concat(l.args, l.env, l.files, []string{l.config}), func(s string) bool { return strings.Contains(s, mark) })
}

// insideDir reports whether file, a slash-separated relative path, names
// a file inside the proxy's directory.
func insideDir(file string) bool {
	f := filepath.Clean(filepath.FromSlash(file))
	return file != "" && !filepath.IsAbs(f) && f != "." && f != ".." && !strings.HasPrefix(f, ".."+string(filepath.Separator))
}

// launchVars are what a profile's templates are rendered with.
type launchVars struct {
	listen, dir, hostsFile, config string
	hosts                          []string
	tmp                            string // {{tmp}}: a short directory of the proxy's own for its temporary files
}

// launch is a profile rendered for one proxy.
type launch struct {
	args   []string
	env    []string // sorted, "K=V"
	config string   // the config file's text; "" with no Config
	files  []string // the text of each of Files, in their order
	tmp    string   // the directory {{tmp}} names, made for it; "" when no template names it
}

// render renders p's templates with v.
func (p Profile) render(v launchVars) (launch, error) {
	var l launch
	for i, a := range p.Args {
		s, err := execute(fmt.Sprintf("args[%d]", i), a, v)
		if err != nil {
			return launch{}, err
		}
		l.args = append(l.args, s)
	}
	for k, val := range p.Env {
		s, err := execute("env "+k, val, v)
		if err != nil {
			return launch{}, err
		}
		l.env = append(l.env, k+"="+s)
	}
	slices.Sort(l.env)
	if p.Config != nil {
		s, err := execute("config", p.Config.Template, v)
		if err != nil {
			return launch{}, err
		}
		l.config = s
	}
	for i, f := range p.Files {
		s, err := execute(fmt.Sprintf("files[%d]", i), f.Template, v)
		if err != nil {
			return launch{}, err
		}
		l.files = append(l.files, s)
	}
	return l, nil
}

// isIP reports whether host is an IP literal as SPEC §6 reads one (an
// inet_aton spelling, an IPv6 literal with or without brackets), for a
// proxy that lists addresses apart from names.
func isIP(host string) bool {
	_, ok := spec.ParseIPLiteral(spec.NormalizeHost(host))
	return ok
}

// matches reports whether s holds a match of the regular expression
// pattern (Go's syntax), for a profile that leaves out the hosts its
// proxy's grammar cannot hold: {{if matches "^[a-z0-9.-]+$" .}}.
func matches(pattern, s string) (bool, error) {
	return regexp.MatchString(pattern, s)
}

// execute renders the template text, named name in errors, with v.
func execute(name, text string, v launchVars) (string, error) {
	host, port, _ := strings.Cut(v.listen, ":")
	if ap, err := netip.ParseAddrPort(v.listen); err == nil {
		host, port = ap.Addr().String(), fmt.Sprint(ap.Port())
	}
	funcs := template.FuncMap{
		"listen":       func() string { return v.listen },
		"listen_host":  func() string { return host },
		"listen_port":  func() string { return port },
		"dir":          func() string { return v.dir },
		"tmp":          func() string { return v.tmp },
		"hosts_file":   func() string { return v.hostsFile },
		"config":       func() string { return v.config },
		"hosts":        func() []string { return v.hosts },
		"hosts_lower":  func() []string { return lowerHosts(v.hosts) },
		"canonical":    canonicalHost,
		"unbracket":    spec.Unbracket,
		"regexp_quote": regexp.QuoteMeta,
		"is_ip":        isIP,
		"trim_dot":     trimDot,
		"matches":      matches,
	}
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, nil); err != nil {
		return "", err
	}
	return b.String(), nil
}
