// Command egressproxy is an HTTP forward proxy that lets its clients reach
// the granted hosts on port 80 and no internal address (package
// egressproxy says exactly what it lets through):
//
//	egressproxy -listen 127.0.0.1:3128 -allow-file hosts.txt
//	egressproxy -listen 127.0.0.1:3128 -allow api.example.com,cdn.example.net
//
// It writes nothing on stdout and one line on stderr for each refusal and
// upstream failure. It exits 2 on a bad flag, an unreadable or malformed
// hosts file, or an EGRESSPROXY_DEFECT that names no defect; 1 when it
// cannot listen; 0 on SIGTERM or interrupt, once the requests under way
// are answered (or after a short drain).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/sbxfuzz/sbxfuzz/examples/egressproxy"
)

const usage = `usage: egressproxy -listen ADDR [-allow-file FILE] [-allow HOST,...]

An HTTP forward proxy: GET http://host/path and CONNECT host:80 reach a
granted host's address on port 80 unless that address is internal.
Without a granted host, every request is refused. EGRESSPROXY_DEFECT=name,
twice, cgnat, mapped or suffix switches on a deliberate defect, to show
what sbxfuzz finds.

`

// drain is how long a shutdown waits for the requests under way.
const drain = 2 * time.Second

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	logger := log.New(stderr, "egressproxy: ", 0)
	listen, hosts, code := parseArgs(args, stdout, stderr)
	if code >= 0 {
		return code
	}
	p, err := egressproxy.New(egressproxy.Config{Hosts: hosts, Log: logger})
	if err != nil {
		logger.Print(err)
		return 2
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		logger.Print(err)
		return 1
	}
	return serve(ln, p, logger)
}

// parseArgs reads the flags and the hosts they grant; code is the exit
// status when the command is to stop here, -1 when it is to go on.
func parseArgs(args []string, stdout, stderr io.Writer) (listen string, hosts []string, code int) {
	fs := flag.NewFlagSet("egressproxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // printed below, to stdout when asked for
	fs.StringVar(&listen, "listen", "", "the `address` to listen on, such as 127.0.0.1:3128 (required)")
	allowFile := fs.String("allow-file", "", "a `file` of granted hosts, one per line, byte for byte; blank lines are ignored")
	allow := fs.String("allow", "", "granted `hosts`, separated by commas")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(stdout, fs)
		return "", nil, 0
	case err != nil:
		return "", nil, badUsage(stderr, fs, "")
	case fs.NArg() > 0:
		return "", nil, badUsage(stderr, fs, fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	case listen == "":
		return "", nil, badUsage(stderr, fs, "-listen is required")
	}
	hosts, err = grantedHosts(*allowFile, *allow)
	if err != nil {
		fmt.Fprintf(stderr, "egressproxy: %v\n", err)
		return "", nil, 2
	}
	return listen, hosts, -1
}

func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// badUsage reports a usage error (the flag package has already printed
// its own) and the usage; it is exit status 2.
func badUsage(stderr io.Writer, fs *flag.FlagSet, msg string) int {
	if msg != "" {
		fmt.Fprintf(stderr, "egressproxy: %s\n", msg)
	}
	printUsage(stderr, fs)
	return 2
}

// grantedHosts are the hosts of the file (if any) and of the list.
func grantedHosts(file, list string) ([]string, error) {
	var hosts []string
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if hosts, err = parseHosts(file, string(data)); err != nil {
			return nil, err
		}
	}
	for h := range strings.SplitSeq(list, ",") {
		if h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts, nil
}

// parseHosts reads one host per line, byte for byte, skipping blank
// lines. A host with white space or a control byte in it is an error:
// no request could name it, and it is most often a Windows line end.
func parseHosts(name, data string) ([]string, error) {
	var hosts []string
	for i, line := range strings.Split(data, "\n") {
		if line == "" {
			continue
		}
		if j := strings.IndexFunc(line, func(r rune) bool { return r <= ' ' || r == 0x7f }); j >= 0 {
			return nil, fmt.Errorf("%s:%d: host %q has white space or a control byte in it", name, i+1, line)
		}
		hosts = append(hosts, line)
	}
	return hosts, nil
}

// serve answers on ln until SIGTERM or an interrupt, then drains.
func serve(ln net.Listener, h http.Handler, logger *log.Logger) int {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		IdleTimeout:       time.Minute,
		WriteTimeout:      2 * egressproxy.DefaultTimeout, // a client that stops reading
		ErrorLog:          logger,
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		dctx, cancel := context.WithTimeout(context.Background(), drain)
		defer cancel()
		srv.Shutdown(dctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		logger.Print(err)
		return 1
	}
	<-stopped
	return 0
}
