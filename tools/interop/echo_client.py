"""Stock grpcio client cases against a server that implements hearth.echo.v1.Echo
and grpc.health.v1.Health (ours, in the interop tests).

Usage: echo_client.py --target HOST:PORT|unix:PATH [--case NAME ...]

Runs every case (or only the named ones), prints "PASS <case>" or
"FAIL <case>: <reason>" for each, and exits 0 only if all passed. Every call
carries a deadline, so a hung server fails a case instead of hanging the run.
"""
import argparse
import sys
import traceback

import grpc

from common import echo_pb2, echo_pb2_grpc, health_pb2, health_pb2_grpc

CALL_TIMEOUT = 30  # seconds; generous for a 2-core CI machine
# The 100k-message stream is decoded by Python while the whole test suite shares the 2 cores; this is a
# bound against a hang, not a speed check (30 s was once not enough under CI load).
STREAM_TIMEOUT = 120


class CaseFailed(Exception):
    pass


def expect(condition, reason):
    if not condition:
        raise CaseFailed(reason)


def expect_status(call, code, details=None):
    """Runs `call`, which must fail with `code` (and `details`, if given)."""
    try:
        call()
    except grpc.RpcError as error:
        expect(error.code() == code, f"expected {code.name}, got {error.code().name}: {error.details()}")
        if details is not None:
            expect(error.details() == details, f"expected details {details!r}, got {error.details()!r}")
        return error
    raise CaseFailed(f"expected {code.name}, the call succeeded")


def case_health(channel):
    reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=CALL_TIMEOUT)
    expect(reply.status == health_pb2.HealthCheckResponse.SERVING, f"status {reply.status}")


def case_unary(channel):
    stub = echo_pb2_grpc.EchoStub(channel)
    for size in (0, 1, 1000, 100_000, 1 << 20):
        payload = bytes(i % 251 for i in range(size))
        reply = stub.Get(echo_pb2.EchoRequest(text=f"size {size}", payload=payload), timeout=CALL_TIMEOUT)
        expect(reply.text == f"size {size}" and reply.payload == payload, f"echo mismatch at size {size}")


def case_server_stream_100k(channel):
    stub = echo_pb2_grpc.EchoStub(channel)
    expected = 0
    for reply in stub.Expand(echo_pb2.ExpandRequest(text="s", count=100_000, payload_size=16), timeout=STREAM_TIMEOUT):
        expect(reply.index == expected, f"index {reply.index}, expected {expected}")
        expect(reply.payload == bytes([expected % 256]) * 16, f"payload mismatch at {expected}")
        expected += 1
    expect(expected == 100_000, f"received {expected} responses")


def case_client_stream(channel):
    stub = echo_pb2_grpc.EchoStub(channel)
    requests = (echo_pb2.EchoRequest(text=str(i), payload=b"x" * 10) for i in range(1000))
    reply = stub.Collect(requests, timeout=CALL_TIMEOUT)
    expect(reply.index == 1000, f"server counted {reply.index}")
    expect(reply.text == " ".join(str(i) for i in range(1000)), "texts joined wrongly")
    expect(len(reply.payload) == 10_000, f"payload length {len(reply.payload)}")


def case_bidi(channel):
    stub = echo_pb2_grpc.EchoStub(channel)
    requests = (echo_pb2.EchoRequest(text=f"b{i}") for i in range(500))
    count = 0
    for index, reply in enumerate(stub.Update(requests, timeout=CALL_TIMEOUT)):
        expect(reply.text == f"b{index}" and reply.index == index, f"reply {index}: {reply.text!r}/{reply.index}")
        count += 1
    expect(count == 500, f"received {count} replies")


def case_deadline_exceeded(channel):
    stub = echo_pb2_grpc.EchoStub(channel)
    expect_status(lambda: stub.Get(echo_pb2.EchoRequest(delay_ms=5000), timeout=0.2),
                  grpc.StatusCode.DEADLINE_EXCEEDED)
    # The connection still serves afterwards.
    expect(stub.Get(echo_pb2.EchoRequest(text="after"), timeout=CALL_TIMEOUT).text == "after", "no reply after deadline")


def case_oversize_rejected(channel_factory):
    # grpcio would refuse to send it itself below its own limit: lift that, so
    # the server's 4 MiB default is what refuses.
    with channel_factory([("grpc.max_send_message_length", 64 << 20)]) as channel:
        stub = echo_pb2_grpc.EchoStub(channel)
        expect_status(lambda: stub.Get(echo_pb2.EchoRequest(payload=b"\0" * (5 << 20)), timeout=CALL_TIMEOUT),
                      grpc.StatusCode.RESOURCE_EXHAUSTED)
        expect(stub.Get(echo_pb2.EchoRequest(text="after"), timeout=CALL_TIMEOUT).text == "after", "no reply after refusal")


def case_metadata_round_trip(channel):
    stub = echo_pb2_grpc.EchoStub(channel)
    metadata = [("x-echo-user", "bob"), ("x-echo-key-bin", bytes([0, 9, 255]))]
    reply, call = stub.Get.with_call(echo_pb2.EchoRequest(text="m"), metadata=metadata, timeout=CALL_TIMEOUT)
    initial = dict(call.initial_metadata())
    trailing = dict(call.trailing_metadata())
    expect(reply.text == "m", "reply text")
    expect(initial.get("x-echo-user") == "bob", f"initial metadata {initial}")
    expect(initial.get("x-echo-key-bin") == bytes([0, 9, 255]), f"initial binary metadata {initial}")
    expect(trailing.get("x-echo-trailer-user") == "bob", f"trailing metadata {trailing}")
    expect(trailing.get("x-echo-trailer-key-bin") == bytes([0, 9, 255]), f"trailing binary metadata {trailing}")


def case_status_propagation(channel):
    stub = echo_pb2_grpc.EchoStub(channel)
    for code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.PERMISSION_DENIED,
                 grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.FAILED_PRECONDITION):
        expect_status(lambda: stub.Get(echo_pb2.EchoRequest(fail_with_code=code.value[0]), timeout=CALL_TIMEOUT), code)


def case_unimplemented(channel):
    method = channel.unary_unary("/hearth.echo.v1.Echo/Nope",
                                 request_serializer=echo_pb2.EchoRequest.SerializeToString,
                                 response_deserializer=echo_pb2.EchoResponse.FromString)
    expect_status(lambda: method(echo_pb2.EchoRequest(), timeout=CALL_TIMEOUT), grpc.StatusCode.UNIMPLEMENTED)
    missing_service = channel.unary_unary("/no.such.Service/Get",
                                          request_serializer=echo_pb2.EchoRequest.SerializeToString,
                                          response_deserializer=echo_pb2.EchoResponse.FromString)
    expect_status(lambda: missing_service(echo_pb2.EchoRequest(), timeout=CALL_TIMEOUT), grpc.StatusCode.UNIMPLEMENTED)


CASES = {
    "health": case_health,
    "unary": case_unary,
    "server_stream_100k": case_server_stream_100k,
    "client_stream": case_client_stream,
    "bidi": case_bidi,
    "deadline_exceeded": case_deadline_exceeded,
    "oversize_rejected": case_oversize_rejected,
    "metadata_round_trip": case_metadata_round_trip,
    "status_propagation": case_status_propagation,
    "unimplemented": case_unimplemented,
}
NEEDS_FACTORY = {"oversize_rejected"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, help="HOST:PORT or unix:PATH")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="run only this case (repeatable)")
    args = parser.parse_args()

    def channel_factory(options=()):
        return grpc.insecure_channel(args.target, options=list(options))

    failures = 0
    with channel_factory() as channel:
        grpc.channel_ready_future(channel).result(timeout=CALL_TIMEOUT)
        for name in args.case or list(CASES):
            try:
                CASES[name](channel_factory if name in NEEDS_FACTORY else channel)
                print(f"PASS {name}", flush=True)
            except CaseFailed as failure:
                failures += 1
                print(f"FAIL {name}: {failure}", flush=True)
            except grpc.RpcError as error:
                failures += 1
                print(f"FAIL {name}: unexpected {error.code().name}: {error.details()}", flush=True)
            except Exception:  # a harness bug: show it, count it
                failures += 1
                print(f"FAIL {name}: {traceback.format_exc()}", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
