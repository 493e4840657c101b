"""gRPC's interop cases on stock grpcio, the client side, against a server with grpc.testing.TestService.

Usage: interop_client.py --target HOST:PORT [--case NAME]...   (every case when none is named)

Prints "PASS <case>" or "FAIL <case>: reason" per case; exit 0 only when all pass. Each case checks what
its description in grpc/grpc's doc/interop-test-descriptions.md asks, with two limits of grpcio's API: it
cannot read a response's compressed flag (the server_compressed cases check sizes only, as the description
allows), and it compresses every message of a compressed call (client_compressed_streaming sends its second
message compressed too, which the description's server accepts).
"""
import argparse
import queue
import sys
import traceback

import grpc

from interop_common import (ECHO_INITIAL_KEY, ECHO_TRAILING_KEY, SPECIAL_MESSAGE, empty_pb2, messages_pb2,
                            payload, test_pb2_grpc)

TIMEOUT = 30


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def check_payload(p, size):
    check(len(p.body) == size, f"payload of {len(p.body)} bytes, expected {size}")
    check(p.body == b"\0" * size, "payload bytes are not all zero")


def expect_error(code, call):
    try:
        call()
    except grpc.RpcError as error:
        check(error.code() == code, f"status {error.code()}: {error.details()}, expected {code}")
        return error
    raise Failure(f"the call succeeded, expected {code}")


class Pipe:
    """A request iterator fed by the test, for calls that must interleave."""

    def __init__(self):
        self._values = queue.Queue()

    def add(self, value):
        self._values.put(value)

    def close(self):
        self._values.put(None)

    def __iter__(self):
        return self

    def __next__(self):
        value = self._values.get()
        if value is None:
            raise StopIteration()
        return value


def large_request(**fields):
    return messages_pb2.SimpleRequest(response_size=314159, payload=payload(271828), **fields)


def output_request(sizes, body=None, **fields):
    params = [messages_pb2.ResponseParameters(size=s) for s in sizes]
    if body is not None:
        fields["payload"] = payload(body)
    return messages_pb2.StreamingOutputCallRequest(response_parameters=params, **fields)


def empty_unary(stub, _):
    response = stub.EmptyCall(empty_pb2.Empty(), timeout=TIMEOUT)
    check(isinstance(response, empty_pb2.Empty), "response is not Empty")


def large_unary(stub, _):
    check_payload(stub.UnaryCall(large_request(), timeout=TIMEOUT).payload, 314159)


def client_compressed_unary(stub, _):
    probe = large_request(expect_compressed=messages_pb2.BoolValue(value=True))
    expect_error(grpc.StatusCode.INVALID_ARGUMENT, lambda: stub.UnaryCall(probe, timeout=TIMEOUT))
    for compression in (grpc.Compression.Gzip, grpc.Compression.Deflate):
        check_payload(stub.UnaryCall(probe, timeout=TIMEOUT, compression=compression).payload, 314159)
    plain = large_request(expect_compressed=messages_pb2.BoolValue(value=False))
    check_payload(stub.UnaryCall(plain, timeout=TIMEOUT).payload, 314159)


def server_compressed_unary(stub, _):
    for compressed in (True, False):
        request = large_request(response_compressed=messages_pb2.BoolValue(value=compressed))
        check_payload(stub.UnaryCall(request, timeout=TIMEOUT).payload, 314159)


def client_streaming(stub, _):
    requests = [messages_pb2.StreamingInputCallRequest(payload=payload(s)) for s in (27182, 8, 1828, 45904)]
    response = stub.StreamingInputCall(iter(requests), timeout=TIMEOUT)
    check(response.aggregated_payload_size == 74922, f"aggregated_payload_size {response.aggregated_payload_size}")


def client_compressed_streaming(stub, _):
    first = messages_pb2.StreamingInputCallRequest(
        expect_compressed=messages_pb2.BoolValue(value=True), payload=payload(27182))
    expect_error(grpc.StatusCode.INVALID_ARGUMENT, lambda: stub.StreamingInputCall(iter([first]), timeout=TIMEOUT))
    second = messages_pb2.StreamingInputCallRequest(
        expect_compressed=messages_pb2.BoolValue(value=False), payload=payload(45904))
    response = stub.StreamingInputCall(iter([first, second]), timeout=TIMEOUT, compression=grpc.Compression.Gzip)
    check(response.aggregated_payload_size == 73086, f"aggregated_payload_size {response.aggregated_payload_size}")


def server_streaming(stub, _):
    sizes = [31415, 9, 2653, 58979]
    responses = list(stub.StreamingOutputCall(output_request(sizes), timeout=TIMEOUT))
    check(len(responses) == 4, f"{len(responses)} responses, expected 4")
    for response, size in zip(responses, sizes):
        check_payload(response.payload, size)


def server_compressed_streaming(stub, _):
    params = [messages_pb2.ResponseParameters(size=31415, compressed=messages_pb2.BoolValue(value=True)),
              messages_pb2.ResponseParameters(size=92653, compressed=messages_pb2.BoolValue(value=False))]
    request = messages_pb2.StreamingOutputCallRequest(response_parameters=params)
    responses = list(stub.StreamingOutputCall(request, timeout=TIMEOUT))
    check(len(responses) == 2, f"{len(responses)} responses, expected 2")
    for response, size in zip(responses, (31415, 92653)):
        check_payload(response.payload, size)


def ping_pong(stub, _):
    pipe = Pipe()
    responses = stub.FullDuplexCall(pipe, timeout=TIMEOUT)
    for size, body in ((31415, 27182), (9, 8), (2653, 1828), (58979, 45904)):
        pipe.add(output_request([size], body))
        check_payload(next(responses).payload, size)
    pipe.close()
    check(next(responses, None) is None, "more than four responses")
    check(responses.code() == grpc.StatusCode.OK, f"status {responses.code()}")


def empty_stream(stub, _):
    responses = list(stub.FullDuplexCall(iter([]), timeout=TIMEOUT))
    check(responses == [], f"{len(responses)} responses, expected none")


def custom_metadata(stub, _):
    metadata = ((ECHO_INITIAL_KEY, "test_initial_metadata_value"), (ECHO_TRAILING_KEY, b"\xab\xab\xab"))

    def check_echoed(initial, trailing, step):
        check((ECHO_INITIAL_KEY, "test_initial_metadata_value") in list(initial), f"{step}: initial {initial}")
        check((ECHO_TRAILING_KEY, b"\xab\xab\xab") in list(trailing), f"{step}: trailing {trailing}")

    response, call = stub.UnaryCall.with_call(large_request(), metadata=metadata, timeout=TIMEOUT)
    check_payload(response.payload, 314159)
    check_echoed(call.initial_metadata(), call.trailing_metadata(), "UnaryCall")
    responses = stub.FullDuplexCall(iter([output_request([314159], 271828)]), metadata=metadata, timeout=TIMEOUT)
    received = list(responses)
    check(len(received) == 1, f"FullDuplexCall: {len(received)} responses")
    check_payload(received[0].payload, 314159)
    check_echoed(responses.initial_metadata(), responses.trailing_metadata(), "FullDuplexCall")


def _echo_status(stub, message, full_duplex):
    status = messages_pb2.EchoStatus(code=2, message=message)
    error = expect_error(grpc.StatusCode.UNKNOWN,
                         lambda: stub.UnaryCall(messages_pb2.SimpleRequest(response_status=status), timeout=TIMEOUT))
    check(error.details() == message, f"UnaryCall: message {error.details()!r}")
    if full_duplex:
        request = messages_pb2.StreamingOutputCallRequest(response_status=status)
        error = expect_error(grpc.StatusCode.UNKNOWN,
                             lambda: list(stub.FullDuplexCall(iter([request]), timeout=TIMEOUT)))
        check(error.details() == message, f"FullDuplexCall: message {error.details()!r}")


def status_code_and_message(stub, _):
    _echo_status(stub, "test status message", True)


def special_status_message(stub, _):
    _echo_status(stub, SPECIAL_MESSAGE, False)


def unimplemented_method(stub, _):
    expect_error(grpc.StatusCode.UNIMPLEMENTED, lambda: stub.UnimplementedCall(empty_pb2.Empty(), timeout=TIMEOUT))


def unimplemented_service(_, channel):
    stub = test_pb2_grpc.UnimplementedServiceStub(channel)
    expect_error(grpc.StatusCode.UNIMPLEMENTED, lambda: stub.UnimplementedCall(empty_pb2.Empty(), timeout=TIMEOUT))


def cancel_after_begin(stub, _):
    pipe = Pipe()
    future = stub.StreamingInputCall.future(pipe, timeout=TIMEOUT)
    future.cancel()
    check(future.cancelled(), "the call was not cancelled")
    check(future.code() == grpc.StatusCode.CANCELLED, f"status {future.code()}")
    pipe.close()


def cancel_after_first_response(stub, _):
    pipe = Pipe()
    responses = stub.FullDuplexCall(pipe, timeout=TIMEOUT)
    pipe.add(output_request([31415], 27182))
    check_payload(next(responses).payload, 31415)
    responses.cancel()
    error = expect_error(grpc.StatusCode.CANCELLED, lambda: next(responses))
    check(responses.code() == grpc.StatusCode.CANCELLED, f"status {responses.code()} {error}")
    pipe.close()


def timeout_on_sleeping_server(stub, _):
    pipe = Pipe()
    responses = stub.FullDuplexCall(pipe, timeout=0.001)
    pipe.add(messages_pb2.StreamingOutputCallRequest(payload=payload(27182)))
    expect_error(grpc.StatusCode.DEADLINE_EXCEEDED, lambda: next(responses))
    pipe.close()


CASES = {f.__name__: f for f in (
    empty_unary, large_unary, client_compressed_unary, server_compressed_unary, client_streaming,
    client_compressed_streaming, server_streaming, server_compressed_streaming, ping_pong, empty_stream,
    custom_metadata, status_code_and_message, special_status_message, unimplemented_method,
    unimplemented_service, cancel_after_begin, cancel_after_first_response, timeout_on_sleeping_server)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True)
    parser.add_argument("--case", action="append", choices=sorted(CASES))
    args = parser.parse_args()
    failed = 0
    with grpc.insecure_channel(args.target) as channel:
        stub = test_pb2_grpc.TestServiceStub(channel)
        for name in args.case or list(CASES):
            try:
                CASES[name](stub, channel)
                print(f"PASS {name}", flush=True)
            except Failure as failure:
                failed += 1
                print(f"FAIL {name}: {failure}", flush=True)
            except Exception:  # noqa: BLE001 (an unexpected error is a failed case, with its trace)
                failed += 1
                print(f"FAIL {name}: {traceback.format_exc()}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
