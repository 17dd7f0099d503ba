package netns

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Listening returns the TCP addresses something in the namespace listens
// on, the harness's own listeners included, sorted: what a command that
// was told where to listen and is not reachable there listens on instead.
// It reads the namespace's /proc/PID/net/tcp and tcp6.
func (s *Sandbox) Listening() ([]netip.AddrPort, error) {
	var all []netip.AddrPort
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", s.Pid(), name))
		if err != nil {
			return nil, err
		}
		l, err := listeningIn(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("/proc/%d/net/%s: %w", s.Pid(), name, err)
		}
		all = append(all, l...)
	}
	slices.SortFunc(all, netip.AddrPort.Compare)
	return slices.Compact(all), nil
}

// listenState is TCP_LISTEN as /proc/net/tcp writes a socket's state.
const listenState = "0A"

// listeningIn reads a /proc/net/tcp or tcp6 table and returns the local
// addresses of its listening sockets.
func listeningIn(f *os.File) ([]netip.AddrPort, error) {
	var out []netip.AddrPort
	sc := bufio.NewScanner(f)
	sc.Scan() // the header line
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[3] != listenState {
			continue
		}
		ap, err := parseProcAddr(fields[1])
		if err != nil {
			return nil, err
		}
		out = append(out, ap)
	}
	return out, sc.Err()
}

// parseProcAddr parses a local address as /proc/net/tcp writes it: the
// address in hex, 32-bit words in the machine's byte order, then ':' and
// the port in hex.
func parseProcAddr(s string) (netip.AddrPort, error) {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", s)
	}
	raw, err := hex.DecodeString(h)
	if err != nil || len(raw) != 4 && len(raw) != 16 {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad port in %q", s)
	}
	for w := 0; w < len(raw); w += 4 { // each word as the kernel holds it, written in network order
		binary.BigEndian.PutUint32(raw[w:], binary.NativeEndian.Uint32(raw[w:]))
	}
	a, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(a.Unmap(), uint16(port)), nil
}
