package spec

import "testing"

// TestURLCarries: what a URL carries unchanged (SPEC §14, "What HTTP
// carries"), and what it would rewrite or cannot hold.
func TestURLCarries(t *testing.T) {
	for host, want := range map[string]bool{
		"api.example.org": true, "API.Example.ORG.": true, "2130706433": true, "0x7f.1": true,
		"::1": true, "[::1]": true, "a!$&'()*+,;=~_-": true,
		"": false, "[::1": false, "fe80::1%eth0": false, "a b": false, "a/b": false, "a%41": false, "a:80": false, "user@a": false, "\xff": false,
	} {
		if got := URLCarriesHost(host); got != want {
			t.Errorf("URLCarriesHost(%q) = %v, want %v", host, got, want)
		}
	}
	for path, want := range map[string]bool{
		"/": true, "/a/b?q=1&r=:@": true, "//a": true,
		"": false, "a": false, "/a/../b": false, "/./a": false, "/a/..": false, "/%2e": false, "/a b": false, "/a#f": false,
	} {
		if got := URLCarriesPath(path); got != want {
			t.Errorf("URLCarriesPath(%q) = %v, want %v", path, got, want)
		}
	}
}
