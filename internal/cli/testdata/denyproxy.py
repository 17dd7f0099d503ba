"""An HTTP proxy that refuses every request with 403, looking nothing up:
the harness's test of a refusal whose journal the door fills."""
import socketserver
import sys


class Deny(socketserver.StreamRequestHandler):
    def handle(self):
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass
        self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


host, port = sys.argv[1].rsplit(":", 1)
socketserver.TCPServer.allow_reuse_address = True
socketserver.TCPServer((host, int(port)), Deny).serve_forever()
