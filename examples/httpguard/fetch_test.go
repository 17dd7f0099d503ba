package httpguard

import "testing"

func TestHostCarried(t *testing.T) {
	tests := []struct {
		host   string
		want   bool
		reason string
	}{
		{"api.example.com", true, "a plain name"},
		{"API.Example.ORG.", true, "case and a trailing dot are sent as they are"},
		{"[::1]", true, "a bracketed IPv6 literal"},
		{"::ffff:203.0.113.1", true, "an unbracketed one: colons are Host bytes"},
		{"127.1", true, "a short IPv4 spelling"},
		{"ü.test", false, "sent in punycode, xn--tda.test"},
		{"a<b", false, "outside the Host grammar: sent empty"},
		{`a\b`, false, "outside the Host grammar: sent empty"},
		{"[fe80::1%eth0]", false, "the zone is dropped"},
		{"a%b", true, "a percent outside brackets is kept"},
	}
	for _, tc := range tests {
		if got := hostCarried(tc.host); got != tc.want {
			t.Errorf("hostCarried(%q) = %v, want %v: %s", tc.host, got, tc.want, tc.reason)
		}
	}
}
