package netns

import (
	"net/netip"
	"os"
	"slices"
	"testing"
)

func TestParseProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:270F":                         "127.0.0.1:9999",
		"00000000:0050":                         "0.0.0.0:80",
		"00000000000000000000000001000000:0050": "[::1]:80",
		"0000000000000000FFFF00000100007F:0C38": "127.0.0.1:3128", // IPv4-mapped, unmapped
		"B80D0120000000000000000001000000:01BB": "[2001:db8::1]:443",
	} {
		got, err := parseProcAddr(in)
		if err != nil || got != netip.MustParseAddrPort(want) {
			t.Errorf("parseProcAddr(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0100007F", "0100007:0050", "XX00007F:0050", "0100007F:10000"} {
		if got, err := parseProcAddr(bad); err == nil {
			t.Errorf("parseProcAddr(%q) = %v, want an error", bad, got)
		}
	}
}

// TestListening: a command listening where it was not told to is found
// there, beside the harness's own listeners.
func TestListening(t *testing.T) {
	requireNamespaces(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Command{Argv: []string{self}, Env: append(os.Environ(), clientEnv+"=listen 127.0.0.1:9999; hang")}, Network{Ports: []uint16{80}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []netip.AddrPort
	waitFor(t, func() bool {
		got, err = s.Listening()
		return err == nil && slices.Contains(got, netip.MustParseAddrPort("127.0.0.1:9999"))
	}, "the command to listen on 127.0.0.1:9999")
	for _, want := range []string{"0.0.0.0:80", "[::]:80"} {
		if !slices.Contains(got, netip.MustParseAddrPort(want)) {
			t.Errorf("listening %v, lacks the harness's %s", got, want)
		}
	}
}
