#!/usr/bin/env python3
"""Serves the dashboard against a hub that speaks only native gRPC: a development stand-in.

    grpcweb_proxy.py --hub 127.0.0.1:7070 [--metrics 127.0.0.1:7071] [--listen 127.0.0.1:0] [--dashboard-dir dashboard]

The hub serves the dashboard and gRPC-Web itself on its TCP port; this proxy does the same job in front of
a hub built without that (an older build), so the page can be worked on with real data. It serves the
files of --dashboard-dir, translates `POST /hearth.v1.HomeService/<Method>` gRPC-Web calls into grpcio calls
(unary answers as a message frame plus a trailer frame, or trailers-only on an error before any message;
Watch as a chunked body written frame by frame) and forwards `GET /metrics` to the hub's metrics port.
Prints `LISTENING <host:port>` once it accepts connections. Stdlib plus grpcio (tools/interop's venv).
"""
from __future__ import annotations

import argparse
import http.server
import mimetypes
import pathlib
import struct
import sys
import urllib.parse
import urllib.request

import grpc

STREAMING = {"Watch"}
TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html; charset=utf-8", ".png": "image/png"}


def frame(flag: int, payload: bytes) -> bytes:
    return struct.pack(">BI", flag, len(payload)) + payload


def trailer_frame(code: int, message: str) -> bytes:
    text = f"grpc-status: {code}\r\ngrpc-message: {urllib.parse.quote(message, safe='')}\r\n"
    return frame(0x80, text.encode())


def parse_timeout(value: str | None) -> float | None:
    if not value:
        return None
    units = {"H": 3600, "M": 60, "S": 1, "m": 1e-3, "u": 1e-6, "n": 1e-9}
    return int(value[:-1]) * units[value[-1]]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    channel: grpc.Channel
    root: pathlib.Path
    metrics: str | None

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        if self.path == "/metrics":
            return self.forward_metrics()
        name = self.path.split("?")[0].lstrip("/") or "index.html"
        file = self.root / name
        if "/" in name or not file.is_file():
            return self.plain(404, "not found\n")
        body = file.read_bytes()
        self.send_response(200)
        self.send_header("content-type", TYPES.get(file.suffix, mimetypes.guess_type(name)[0] or "application/octet-stream"))
        self.send_header("content-length", str(len(body)))
        self.send_header("cache-control", "no-cache")
        # Stricter than needed on purpose (no inline styles or scripts): the page must not rely on them.
        self.send_header("content-security-policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
        self.end_headers()
        self.wfile.write(body)

    def plain(self, status: int, text: str) -> None:
        body = text.encode()
        self.send_response(status)
        self.send_header("content-type", "text/plain; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def forward_metrics(self) -> None:
        if not self.metrics:
            return self.plain(404, "no --metrics port given\n")
        if not self.headers.get("authorization", "").startswith("Bearer "):
            return self.plain(401, "missing token\n")
        with urllib.request.urlopen(f"http://{self.metrics}/metrics", timeout=5) as response:
            self.plain(200, response.read().decode())

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        method = self.path.rsplit("/", 1)[-1]
        if not self.path.startswith("/hearth.v1.HomeService/") or len(body) < 5:
            return self.plain(404, "not a gRPC-Web call\n")
        (length,) = struct.unpack(">I", body[1:5])
        request = body[5:5 + length]
        metadata = [("authorization", self.headers.get("authorization", ""))]
        timeout = parse_timeout(self.headers.get("grpc-timeout"))
        ident = lambda b: b  # noqa: E731
        path = f"/hearth.v1.HomeService/{method}"
        if method not in STREAMING:
            try:
                reply = self.channel.unary_unary(path, request_serializer=ident, response_deserializer=ident)(
                    request, metadata=metadata, timeout=timeout)
            except grpc.RpcError as error:
                return self.trailers_only(error.code().value[0], error.details() or "")
            out = frame(0, reply) + trailer_frame(0, "")
            self.send_response(200)
            self.send_header("content-type", "application/grpc-web+proto")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        call = self.channel.unary_stream(path, request_serializer=ident, response_deserializer=ident)(
            request, metadata=metadata, timeout=timeout)
        started = False
        try:
            for reply in call:
                if not started:
                    self.start_stream()
                    started = True
                self.chunk(frame(0, reply))
            code, message = 0, ""
        except grpc.RpcError as error:
            code, message = error.code().value[0], error.details() or ""
        except (BrokenPipeError, ConnectionResetError):
            call.cancel()
            return
        if not started:
            return self.trailers_only(code, message)
        try:
            self.chunk(trailer_frame(code, message))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def trailers_only(self, code: int, message: str) -> None:
        self.send_response(200)
        self.send_header("content-type", "application/grpc-web+proto")
        self.send_header("grpc-status", str(code))
        self.send_header("grpc-message", urllib.parse.quote(message, safe=""))
        self.send_header("content-length", "0")
        self.end_headers()

    def start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "application/grpc-web+proto")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub", required=True, help="the hub's native gRPC address, HOST:PORT")
    parser.add_argument("--metrics", help="the hub's metrics_listen address, HOST:PORT")
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--dashboard-dir", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2] / "dashboard")
    args = parser.parse_args()
    Handler.channel = grpc.insecure_channel(args.hub)
    Handler.root = args.dashboard_dir.resolve()
    Handler.metrics = args.metrics
    host, port = args.listen.rsplit(":", 1)
    server = http.server.ThreadingHTTPServer((host, int(port)), Handler)
    server.daemon_threads = True
    print(f"LISTENING {server.server_address[0]}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
