"""The echo service on stock grpcio, for our client's interop tests.

Usage: echo_server.py [--host 127.0.0.1] [--port 0] [--unix PATH]

Prints one line, "LISTENING <port>" (or "LISTENING unix:<path>"), once bound,
then serves until SIGTERM or until its standard input reaches end of file
(so a test that dies does not leave it behind).
"""
import argparse
import signal
import sys
import threading
import time
from concurrent import futures

import grpc

from common import echo_pb2, echo_pb2_grpc, echoed_metadata, health, health_pb2, health_pb2_grpc


class Echo(echo_pb2_grpc.EchoServicer):
    """Echo semantics shared with HearthTesting.EchoService."""

    def _begin(self, context):
        initial, trailing = echoed_metadata(context.invocation_metadata())
        if initial:
            context.send_initial_metadata(initial)
            context.set_trailing_metadata(trailing)

    @staticmethod
    def _honour(request, context):
        if request.delay_ms:
            end = time.monotonic() + request.delay_ms / 1000
            while time.monotonic() < end and context.is_active():
                time.sleep(0.01)
        if request.fail_with_code:
            context.abort(grpc.StatusCode(_code(request.fail_with_code)), "requested failure")

    def Get(self, request, context):
        self._begin(context)
        self._honour(request, context)
        return echo_pb2.EchoResponse(text=request.text, payload=request.payload)

    def Expand(self, request, context):
        self._begin(context)
        for index in range(request.count):
            payload = bytes([index % 256]) * request.payload_size
            yield echo_pb2.EchoResponse(text=request.text, index=index, payload=payload)

    def Collect(self, request_iterator, context):
        self._begin(context)
        texts, payload = [], b""
        for request in request_iterator:
            texts.append(request.text)
            payload += request.payload
        return echo_pb2.EchoResponse(text=" ".join(texts), index=len(texts), payload=payload)

    def Update(self, request_iterator, context):
        self._begin(context)
        for index, request in enumerate(request_iterator):
            self._honour(request, context)
            yield echo_pb2.EchoResponse(text=request.text, payload=request.payload, index=index)


def _code(number):
    """grpc.StatusCode member for a numeric code."""
    for status in grpc.StatusCode:
        if status.value[0] == number:
            return status.value
    return grpc.StatusCode.UNKNOWN.value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--unix")
    args = parser.parse_args()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    echo_pb2_grpc.add_EchoServicer_to_server(Echo(), server)
    health_servicer = health.HealthServicer()
    health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    if args.unix:
        server.add_insecure_port(f"unix:{args.unix}")
        where = f"unix:{args.unix}"
    else:
        port = server.add_insecure_port(f"{args.host}:{args.port}")
        where = str(port)
    server.start()
    print(f"LISTENING {where}", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    server.stop(grace=1).wait()


if __name__ == "__main__":
    main()
