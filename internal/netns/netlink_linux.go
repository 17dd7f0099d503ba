package netns

import (
	"encoding/binary"
	"fmt"
	"net"
	"syscall"
)

// Constants of rtnetlink(7) the syscall package does not name.
const (
	rtTableLocal = 255
	rtprotBoot   = 3
	rtScopeHost  = 254
	rtnLocal     = 2
)

// makeEveryAddressLocal brings loopback up and routes every address to it
// as local, as `ip link set lo up` and `ip route add local 0.0.0.0/0 dev
// lo` (and ::/0) do, over rtnetlink so that nothing needs installing.
func makeEveryAddressLocal() error {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return err
	}
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("netlink: %w", err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return fmt.Errorf("netlink: %w", err)
	}
	if err := netlinkDo(fd, syscall.RTM_NEWLINK, 0, linkUp(lo.Index)); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	for _, family := range []byte{syscall.AF_INET, syscall.AF_INET6} {
		flags := uint16(syscall.NLM_F_CREATE | syscall.NLM_F_EXCL)
		if err := netlinkDo(fd, syscall.RTM_NEWROUTE, flags, localDefaultRoute(family, lo.Index)); err != nil {
			return fmt.Errorf("routing every address of family %d to lo: %w", family, err)
		}
	}
	return nil
}

// linkUp is an ifinfomsg that sets IFF_UP on link index.
func linkUp(index int) []byte {
	b := make([]byte, syscall.SizeofIfInfomsg)
	b[0] = syscall.AF_UNSPEC
	binary.NativeEndian.PutUint32(b[4:], uint32(index))
	binary.NativeEndian.PutUint32(b[8:], syscall.IFF_UP)  // flags
	binary.NativeEndian.PutUint32(b[12:], syscall.IFF_UP) // change
	return b
}

// localDefaultRoute is an rtmsg for a local route of the whole family
// (prefix length 0) through link index, in the local table.
func localDefaultRoute(family byte, index int) []byte {
	b := make([]byte, syscall.SizeofRtMsg, syscall.SizeofRtMsg+8)
	b[0] = family
	b[4] = rtTableLocal
	b[5] = rtprotBoot
	b[6] = rtScopeHost
	b[7] = rtnLocal
	b = binary.NativeEndian.AppendUint16(b, 8) // rtattr length
	b = binary.NativeEndian.AppendUint16(b, syscall.RTA_OIF)
	return binary.NativeEndian.AppendUint32(b, uint32(index))
}

// netlinkDo sends one request of type typ with body and waits for its
// acknowledgement.
func netlinkDo(fd int, typ, flags uint16, body []byte) error {
	msg := make([]byte, 0, syscall.NLMSG_HDRLEN+len(body))
	msg = binary.NativeEndian.AppendUint32(msg, uint32(syscall.NLMSG_HDRLEN+len(body)))
	msg = binary.NativeEndian.AppendUint16(msg, typ)
	msg = binary.NativeEndian.AppendUint16(msg, flags|syscall.NLM_F_REQUEST|syscall.NLM_F_ACK)
	msg = binary.NativeEndian.AppendUint32(msg, 1) // sequence
	msg = binary.NativeEndian.AppendUint32(msg, 0) // to the kernel
	msg = append(msg, body...)
	if err := syscall.Sendto(fd, msg, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := syscall.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	replies, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil {
		return err
	}
	for _, r := range replies {
		if r.Header.Type == syscall.NLMSG_ERROR && len(r.Data) >= 4 {
			if errno := -int32(binary.NativeEndian.Uint32(r.Data)); errno != 0 {
				return syscall.Errno(errno)
			}
			return nil
		}
	}
	return fmt.Errorf("netlink: no acknowledgement")
}
