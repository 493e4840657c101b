"""grpc.testing.TestService on stock grpcio, the server side of gRPC's interop cases, for our client.

Usage: interop_server.py [--host 127.0.0.1] [--port 0]

Prints "LISTENING <port>" once bound, then serves until SIGTERM or until its standard input reaches end of
file. Implements EmptyCall, UnaryCall, StreamingOutputCall, StreamingInputCall, FullDuplexCall and
HalfDuplexCall with Echo Status, Echo Metadata, CompressedResponse and interval_us. CompressedRequest is
not implemented: grpcio's server API does not show whether a request message came compressed.
"""
import argparse
import signal
import sys
import threading
import time
from concurrent import futures

import grpc

from interop_common import (ECHO_INITIAL_KEY, ECHO_TRAILING_KEY, empty_pb2, messages_pb2, payload,
                            test_pb2_grpc)


def _echo_metadata(context):
    initial = [(k, v) for k, v in context.invocation_metadata() if k == ECHO_INITIAL_KEY]
    trailing = [(k, v) for k, v in context.invocation_metadata() if k == ECHO_TRAILING_KEY]
    if initial:
        context.send_initial_metadata(initial)
    if trailing:
        context.set_trailing_metadata(trailing)


def _echo_status(request, context):
    if request.HasField("response_status") and request.response_status.code != 0:
        context.abort(grpc.StatusCode(_code(request.response_status.code)), request.response_status.message)


def _code(number):
    for status in grpc.StatusCode:
        if status.value[0] == number:
            return status.value
    return grpc.StatusCode.UNKNOWN.value


def _responses(request, context):
    """One response per response_parameters entry, compressed as each asks."""
    if any(p.HasField("compressed") and p.compressed.value for p in request.response_parameters):
        context.set_compression(grpc.Compression.Gzip)
    for parameters in request.response_parameters:
        if parameters.interval_us:
            time.sleep(parameters.interval_us / 1e6)
        if not (parameters.HasField("compressed") and parameters.compressed.value):
            context.disable_next_message_compression()
        yield messages_pb2.StreamingOutputCallResponse(payload=payload(parameters.size))


class TestService(test_pb2_grpc.TestServiceServicer):
    def EmptyCall(self, request, context):
        _echo_metadata(context)
        return empty_pb2.Empty()

    def UnaryCall(self, request, context):
        _echo_metadata(context)
        _echo_status(request, context)
        if request.HasField("response_compressed") and request.response_compressed.value:
            context.set_compression(grpc.Compression.Gzip)
        return messages_pb2.SimpleResponse(payload=payload(request.response_size))

    def StreamingOutputCall(self, request, context):
        _echo_metadata(context)
        _echo_status(request, context)
        yield from _responses(request, context)

    def StreamingInputCall(self, request_iterator, context):
        _echo_metadata(context)
        total = sum(len(request.payload.body) for request in request_iterator)
        return messages_pb2.StreamingInputCallResponse(aggregated_payload_size=total)

    def FullDuplexCall(self, request_iterator, context):
        _echo_metadata(context)
        for request in request_iterator:
            _echo_status(request, context)
            yield from _responses(request, context)

    def HalfDuplexCall(self, request_iterator, context):
        _echo_metadata(context)
        requests = list(request_iterator)
        for request in requests:
            _echo_status(request, context)
            yield from _responses(request, context)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    test_pb2_grpc.add_TestServiceServicer_to_server(TestService(), server)
    port = server.add_insecure_port(f"{args.host}:{args.port}")
    server.start()
    print(f"LISTENING {port}", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    server.stop(grace=1).wait()


if __name__ == "__main__":
    main()
