package proc

import (
	"runtime"
	"testing"
)

// TestUnsupported checks that on a system without process groups neither
// a session nor a process is started, and the error says so in one line.
func TestUnsupported(t *testing.T) {
	defer func(was bool) { supported = was }(supported)
	supported = false
	want := "not supported on " + runtime.GOOS
	if _, err := Sessions("sh -c 'exit 0'"); err == nil || err.Error() != want {
		t.Errorf("Sessions: %v, want %q", err, want)
	}
	if p, err := Start([]string{"sh", "-c", "exit 0"}, ""); err == nil || err.Error() != "starting sh -c exit 0: "+want {
		if err == nil {
			p.Kill()
		}
		t.Errorf("Start: %v, want %q", err, "starting sh -c exit 0: "+want)
	}
}
