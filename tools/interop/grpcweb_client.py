"""A gRPC-Web client (grpc/grpc doc/PROTOCOL-WEB.md) for hearth.echo.v1.Echo, over HTTP/1.1 (http.client) and
HTTP/2 with prior knowledge (the h2 package), sending what browser gRPC-Web libraries send.

Usage: grpcweb_client.py --port PORT --allowed-origin ORIGIN --max-message BYTES [--case NAME ...]

Prints "PASS <case>" or "FAIL <case>: <reason>" per case and exits 0 only if all passed. Every socket has a
timeout, so a hung server fails a case instead of hanging the run.
"""
import argparse
import base64
import http.client
import socket
import ssl
import struct
import sys
import traceback
import urllib.parse

import h2.config
import h2.connection
import h2.events

from common import echo_pb2

TIMEOUT = 30
GET = "/hearth.echo.v1.Echo/Get"
EXPAND = "/hearth.echo.v1.Echo/Expand"
COLLECT = "/hearth.echo.v1.Echo/Collect"
BINARY = "application/grpc-web+proto"
TEXT = "application/grpc-web-text"


class CaseFailed(Exception):
    pass


def expect(condition, reason):
    if not condition:
        raise CaseFailed(reason)


def frame(message_bytes, flag=0):
    return struct.pack(">BI", flag, len(message_bytes)) + message_bytes


def parse_body(body):
    """Splits a response body into message payloads and the trailer block (a dict), as a browser client does."""
    messages, trailers, offset = [], None, 0
    while offset < len(body):
        expect(len(body) - offset >= 5, f"truncated frame prefix at {offset}")
        flag, length = struct.unpack(">BI", body[offset:offset + 5])
        payload = body[offset + 5:offset + 5 + length]
        expect(len(payload) == length, f"truncated frame at {offset}")
        offset += 5 + length
        if flag & 0x80:
            expect(trailers is None, "two trailer frames")
            trailers = {}
            for line in payload.decode().split("\r\n"):
                if line:
                    name, _, value = line.partition(":")
                    trailers[name.strip().lower()] = value.strip()
        else:
            expect(trailers is None, "a message after the trailer frame")
            expect(flag == 0, f"unexpected message flag {flag}")
            messages.append(payload)
    return messages, trailers


class Answer:
    """A response as the client sees it: status, headers, messages and the gRPC status from wherever it came."""

    def __init__(self, status, headers, body, text):
        self.http_status = status
        self.headers = {k.lower(): v for k, v in headers}
        if text:
            body = base64.b64decode(body) if body else b""
        self.messages, trailers = parse_body(body)
        source = trailers if trailers is not None else self.headers
        self.trailers = trailers or {}
        self.grpc_status = int(source.get("grpc-status", "-1"))
        self.grpc_message = urllib.parse.unquote(source.get("grpc-message", ""))

    def replies(self):
        return [echo_pb2.EchoResponse.FromString(m) for m in self.messages]


def h1_call(port, path, request_bytes, content_type=BINARY, extra=(), connection=None, raw_body=None):
    text = content_type.startswith(TEXT)
    body = raw_body if raw_body is not None else frame(request_bytes)
    if text and raw_body is None:
        body = base64.b64encode(body)
    headers = {"content-type": content_type, "x-grpc-web": "1", "x-user-agent": "grpc-web-javascript/0.1",
               "accept": TEXT if text else BINARY}
    headers.update(dict(extra))
    conn = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    conn.request("POST", path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    answer = Answer(response.status, response.getheaders(), data, text)
    if connection is None:
        conn.close()
    return answer


def h2_call(port, path, request_bytes, content_type=BINARY):
    text = content_type.startswith(TEXT)
    body = frame(request_bytes)
    if text:
        body = base64.b64encode(body)
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    stream = conn.get_next_available_stream_id()
    conn.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":path", path),
                               (":authority", f"127.0.0.1:{port}"), ("content-type", content_type),
                               ("x-grpc-web", "1")])
    conn.send_data(stream, body, end_stream=True)
    sock.sendall(conn.data_to_send())
    headers, data, trailers_frame, ended = [], b"", None, False
    while not ended:
        chunk = sock.recv(65536)
        expect(chunk, "connection closed before the stream ended")
        for event in conn.receive_data(chunk):
            if isinstance(event, h2.events.ResponseReceived):
                headers = [(k.decode(), v.decode()) for k, v in event.headers]
            elif isinstance(event, h2.events.TrailersReceived):
                trailers_frame = event.headers
            elif isinstance(event, h2.events.DataReceived):
                data += event.data
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                ended = True
            elif isinstance(event, h2.events.StreamReset):
                raise CaseFailed(f"stream reset with {event.error_code}")
        sock.sendall(conn.data_to_send())
    sock.close()
    expect(trailers_frame is None, "gRPC-Web over HTTP/2 sent HTTP trailers; the status belongs in the body")
    answer = Answer(int(dict(headers)[":status"]), [h for h in headers if not h[0].startswith(":")], data, text)
    return answer


def get_request(text="hello", **fields):
    return echo_pb2.EchoRequest(text=text, **fields).SerializeToString()


def case_h1_unary(args):
    answer = h1_call(args.port, GET, get_request("hi"), extra=[("x-echo-room", "kitchen")])
    expect(answer.http_status == 200, f"HTTP {answer.http_status}")
    expect(answer.headers.get("content-type", "").startswith(BINARY), f"content-type {answer.headers}")
    expect(answer.grpc_status == 0, f"status {answer.grpc_status} {answer.grpc_message}")
    expect([r.text for r in answer.replies()] == ["hi"], f"replies {answer.replies()}")
    expect(answer.headers.get("x-echo-room") == "kitchen", "initial metadata not echoed in the headers")
    expect(answer.trailers.get("x-echo-trailer-room") == "kitchen", f"trailers {answer.trailers}")


def case_h1_unary_text(args):
    answer = h1_call(args.port, GET, get_request("text mode", payload=bytes(range(256)) * 10), content_type=TEXT)
    expect(answer.headers.get("content-type", "").startswith(TEXT), f"content-type {answer.headers}")
    expect(answer.grpc_status == 0, f"status {answer.grpc_status} {answer.grpc_message}")
    reply = answer.replies()[0]
    expect(reply.text == "text mode" and reply.payload == bytes(range(256)) * 10, "payload changed in text mode")


def case_h1_server_streaming(args):
    request = echo_pb2.ExpandRequest(text="s", count=200, payload_size=700).SerializeToString()
    answer = h1_call(args.port, EXPAND, request)
    expect(answer.grpc_status == 0, f"status {answer.grpc_status} {answer.grpc_message}")
    expect([r.index for r in answer.replies()] == list(range(200)), "messages missing or out of order")


def case_h1_server_streaming_text(args):
    request = echo_pb2.ExpandRequest(text="t", count=37, payload_size=101).SerializeToString()
    answer = h1_call(args.port, EXPAND, request, content_type=TEXT + "+proto")
    expect(answer.grpc_status == 0, f"status {answer.grpc_status} {answer.grpc_message}")
    expect(len(answer.replies()) == 37, f"{len(answer.replies())} messages")


def case_h1_error_status(args):
    answer = h1_call(args.port, GET, get_request(fail_with_code=5))
    expect(answer.http_status == 200, f"HTTP {answer.http_status}")
    expect(answer.grpc_status == 5 and answer.grpc_message == "requested failure",
           f"status {answer.grpc_status} {answer.grpc_message!r}")
    expect("access-control-expose-headers" not in answer.headers, "CORS headers on a request without Origin")


def case_h1_unknown_method(args):
    answer = h1_call(args.port, "/hearth.echo.v1.Echo/Nope", get_request())
    expect(answer.grpc_status == 12, f"status {answer.grpc_status}")


def case_h1_client_streaming_refused(args):
    answer = h1_call(args.port, COLLECT, get_request())
    expect(answer.grpc_status == 12 and "unary and server-streaming" in answer.grpc_message,
           f"status {answer.grpc_status} {answer.grpc_message!r}")


def case_h1_deadline(args):
    answer = h1_call(args.port, GET, get_request(delay_ms=5000), extra=[("grpc-timeout", "200m")])
    expect(answer.grpc_status == 4, f"status {answer.grpc_status} {answer.grpc_message}")


def case_h1_oversized(args):
    answer = h1_call(args.port, GET, get_request(payload=b"x" * (args.max_message + 10)))
    expect(answer.grpc_status == 8, f"status {answer.grpc_status} {answer.grpc_message}")


def case_h1_malformed_frame(args):
    answer = h1_call(args.port, GET, b"", raw_body=frame(get_request(), flag=7))
    expect(answer.grpc_status == 13 and "flag" in answer.grpc_message, f"{answer.grpc_status} {answer.grpc_message}")


def case_h1_truncated_body(args):
    answer = h1_call(args.port, GET, b"", raw_body=frame(get_request())[:-2])
    expect(answer.grpc_status == 13, f"status {answer.grpc_status} {answer.grpc_message}")


def case_h1_bad_base64(args):
    answer = h1_call(args.port, GET, b"", content_type=TEXT, raw_body=b"AAAA!!!!")
    expect(answer.grpc_status == 13 and "base64" in answer.grpc_message, f"{answer.grpc_status} {answer.grpc_message}")


def case_h1_keep_alive(args):
    conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=TIMEOUT)
    for text in ["one", "two", "three"]:
        answer = h1_call(args.port, GET, get_request(text), connection=conn)
        expect([r.text for r in answer.replies()] == [text], f"call {text} on a kept-alive connection")
    conn.close()


def case_h1_preflight(args):
    conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=TIMEOUT)
    conn.request("OPTIONS", GET, headers={"origin": args.allowed_origin, "access-control-request-method": "POST",
                                          "access-control-request-headers": "content-type,x-grpc-web,authorization"})
    response = conn.getresponse()
    response.read()
    expect(response.status == 204, f"HTTP {response.status}")
    expect(response.getheader("access-control-allow-origin") == args.allowed_origin, "no allow-origin")
    expect("authorization" in response.getheader("access-control-allow-headers", ""), "authorization not allowed")
    conn.request("OPTIONS", GET, headers={"origin": "https://evil.example", "access-control-request-method": "POST"})
    response = conn.getresponse()
    response.read()
    expect(response.status == 403, f"a foreign origin's preflight got HTTP {response.status}")
    conn.close()


def case_h1_cross_origin_call(args):
    answer = h1_call(args.port, GET, get_request("cors"), extra=[("origin", args.allowed_origin)])
    expect(answer.grpc_status == 0, f"status {answer.grpc_status}")
    expect(answer.headers.get("access-control-allow-origin") == args.allowed_origin, "no allow-origin on the call")
    expect("grpc-status" in answer.headers.get("access-control-expose-headers", ""), "grpc-status not exposed")
    refused = h1_call(args.port, GET, get_request(), extra=[("origin", "https://evil.example")])
    expect(refused.grpc_status == 7, f"a foreign origin's call got status {refused.grpc_status}")
    same = h1_call(args.port, GET, get_request("same"), extra=[("origin", f"http://127.0.0.1:{args.port}")])
    expect(same.grpc_status == 0, f"a same-origin call got status {same.grpc_status} {same.grpc_message}")


def case_h1_other_requests(args):
    conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=TIMEOUT)
    conn.request("GET", "/hello?x=1")
    response = conn.getresponse()
    body = response.read()
    expect(response.status == 200 and body == b"hello /hello x=1", f"HTTP {response.status} {body!r}")
    conn.request("POST", GET, body=frame(get_request()), headers={"content-type": "application/grpc"})
    response = conn.getresponse()
    response.read()
    expect(response.status == 404, f"native gRPC content-type over HTTP/1.1 got HTTP {response.status}")
    conn.close()


def case_tls_h1_unary(args):
    """HTTP/1.1 over TLS (only with --tls-ca): a browser offers h2 and http/1.1, and the hub picks http/1.1,
    over which it serves its pages as well as gRPC-Web."""
    expect(args.tls_ca, "needs --tls-ca")
    context = ssl.create_default_context(cafile=args.tls_ca)
    context.set_alpn_protocols(["h2", "http/1.1"])
    conn = http.client.HTTPSConnection("localhost", args.port, timeout=TIMEOUT, context=context)
    answer = h1_call(args.port, GET, get_request("over tls"), connection=conn)
    expect(conn.sock.selected_alpn_protocol() == "http/1.1", f"ALPN {conn.sock.selected_alpn_protocol()}")
    conn.close()
    expect(answer.grpc_status == 0, f"status {answer.grpc_status} {answer.grpc_message}")
    expect([r.text for r in answer.replies()] == ["over tls"], "reply")


def case_h2_unary(args):
    answer = h2_call(args.port, GET, get_request("over h2"))
    expect(answer.headers.get("content-type", "").startswith(BINARY), f"content-type {answer.headers}")
    expect(answer.grpc_status == 0, f"status {answer.grpc_status} {answer.grpc_message}")
    expect([r.text for r in answer.replies()] == ["over h2"], "reply")


def case_h2_server_streaming_text(args):
    request = echo_pb2.ExpandRequest(text="h2", count=300, payload_size=500).SerializeToString()
    answer = h2_call(args.port, EXPAND, request, content_type=TEXT)
    expect(answer.grpc_status == 0, f"status {answer.grpc_status} {answer.grpc_message}")
    expect([r.index for r in answer.replies()] == list(range(300)), "messages missing or out of order")


def case_h2_error_status(args):
    answer = h2_call(args.port, GET, get_request(fail_with_code=9))
    expect(answer.grpc_status == 9, f"status {answer.grpc_status}")


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--allowed-origin", required=True)
    parser.add_argument("--max-message", type=int, required=True)
    parser.add_argument("--tls-ca", help="the server speaks TLS; run only the TLS cases, trusting this CA")
    parser.add_argument("--case", action="append")
    args = parser.parse_args()
    failed = 0
    default = [n for n in sorted(CASES) if n.startswith("tls_") == bool(args.tls_ca)]
    for name in args.case or default:
        try:
            CASES[name](args)
            print(f"PASS {name}", flush=True)
        except Exception as error:  # noqa: BLE001 - every failure is reported per case
            failed += 1
            detail = str(error) if isinstance(error, CaseFailed) else traceback.format_exc()
            print(f"FAIL {name}: {detail}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
