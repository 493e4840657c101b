"""Raw HTTP/2 for the abuse suite: frames built by hand (for floods and trickles that no well-behaved
library would send) and a small client on hyper-h2 (for streams that are well-formed but abusive: never
finished, never read, never authenticated).

Loopback only: every function takes a port on 127.0.0.1.
"""
import errno
import select
import socket
import struct
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import hpack

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7, 0x8, 0x9
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4

H2_ERRORS = {0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x3: "FLOW_CONTROL_ERROR",
             0x4: "SETTINGS_TIMEOUT", 0x5: "STREAM_CLOSED", 0x6: "FRAME_SIZE_ERROR", 0x7: "REFUSED_STREAM",
             0x8: "CANCEL", 0x9: "COMPRESSION_ERROR", 0xA: "CONNECT_ERROR", 0xB: "ENHANCE_YOUR_CALM",
             0xC: "INADEQUATE_SECURITY", 0xD: "HTTP_1_1_REQUIRED"}

SETTINGS_ENABLE_PUSH = 0x2
SETTINGS_INITIAL_WINDOW_SIZE = 0x4
SETTINGS_MAX_FRAME_SIZE = 0x5

HEALTH_CHECK = "/grpc.health.v1.Health/Check"
GET_HUB = "/hearth.v1.HomeService/GetHub"
WATCH = "/hearth.v1.HomeService/Watch"
RENAME_ROOM = "/hearth.v1.HomeService/RenameRoom"


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream & 0x7FFFFFFF) + payload


def settings_frame(pairs=(), ack=False):
    return frame(SETTINGS, ACK if ack else 0, 0, b"".join(struct.pack(">HI", k, v) for k, v in pairs))


def ping_frame(data=b"\0" * 8, ack=False):
    return frame(PING, ACK if ack else 0, 0, data)


def window_update_frame(stream, increment):
    return frame(WINDOW_UPDATE, 0, stream, struct.pack(">I", increment))


def grpc_message(payload):
    """A gRPC length-prefixed message (uncompressed)."""
    return b"\0" + struct.pack(">I", len(payload)) + payload


def request_headers(path, token=None, extra=(), timeout=None):
    headers = [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1"),
               ("content-type", "application/grpc"), ("te", "trailers")]
    if token:
        headers.append(("authorization", f"Bearer {token}"))
    if timeout:
        headers.append(("grpc-timeout", timeout))
    headers.extend(extra)
    return headers


def encode_headers(headers, encoder=None):
    return (encoder or hpack.Encoder()).encode(headers)


def connect(port, timeout=5.0):
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def close_with_reset(sock):
    """Closes so that the kernel sends RST instead of FIN (SO_LINGER 0)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


def drain(sock, limit=1 << 20):
    """Reads whatever is waiting without blocking; returns (bytes read, peer closed)."""
    total = 0
    try:
        while total < limit:
            chunk = sock.recv(65536, socket.MSG_DONTWAIT)
            if not chunk:
                return total, True
            total += len(chunk)
    except (BlockingIOError, InterruptedError):
        return total, False
    except OSError:
        return total, True
    return total, False


def send_all(sock, data, deadline):
    """sendall with an absolute deadline; returns 'ok', 'closed' (the peer reset or closed) or 'timeout'."""
    view = memoryview(data)
    while view:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "timeout"
        sock.settimeout(min(remaining, 1.0))
        try:
            sent = sock.send(view)
        except socket.timeout:
            continue
        except (BrokenPipeError, ConnectionResetError):
            return "closed"
        except OSError as error:
            if error.errno in (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN):
                return "closed"
            raise
        view = view[sent:]
    return "ok"


class FrameReader:
    """Parses frames the server sends (enough to see SETTINGS, GOAWAY, RST_STREAM and grpc-status)."""

    def __init__(self):
        self.buffer = bytearray()
        self.decoder = hpack.Decoder()
        self.decoder.max_allowed_table_size = 65536

    def feed(self, data):
        self.buffer += data
        frames = []
        while len(self.buffer) >= 9:
            length = int.from_bytes(self.buffer[0:3], "big")
            if len(self.buffer) < 9 + length:
                break
            kind, flags = self.buffer[3], self.buffer[4]
            stream = int.from_bytes(self.buffer[5:9], "big") & 0x7FFFFFFF
            payload = bytes(self.buffer[9:9 + length])
            del self.buffer[:9 + length]
            frames.append((kind, flags, stream, payload))
        return frames


# ---------------------------------------------------------------------------------------------------------
# A client on hyper-h2


class H2Client:
    """One HTTP/2 connection driven by hyper-h2 on a blocking socket with explicit deadlines."""

    def __init__(self, port, initial_window=None, timeout=5.0, header_table_size=None):
        self.sock = connect(port, timeout)
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8",
                                           validate_outbound_headers=False, normalize_outbound_headers=False,
                                           validate_inbound_headers=False)
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.initiate_connection()
        self.unacked_settings = 1
        if initial_window is not None:
            self.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: initial_window})
            self.unacked_settings += 1
        self.responses = {}  # stream id -> {"headers": [...], "data": bytearray, "trailers": [...], "ended", "reset"}
        self.terminated = None  # GOAWAY error code, or "closed"
        self.got_settings = False
        self.flush()

    # I/O

    def flush(self, deadline=None):
        data = self.conn.data_to_send()
        if not data:
            return "ok"
        return send_all(self.sock, data, deadline or time.monotonic() + 5.0)

    def pump(self, seconds, until=None, ack_data=True):
        """Reads and handles events for up to `seconds` (at least one non-blocking read, even for 0) or until
        `until()` is true. Returns `until()` (False without one)."""
        deadline = time.monotonic() + seconds
        first = True
        while True:
            if until is not None and until():
                return True
            if self.terminated is not None:
                return False
            remaining = deadline - time.monotonic()
            if remaining <= 0 and not first:
                return False
            first = False
            ready, _, _ = select.select([self.sock], [], [], max(0.0, min(remaining, 0.2)))
            if not ready:
                continue
            try:
                data = self.sock.recv(1 << 16)
            except OSError:
                self.terminated = self.terminated or "reset"
                continue
            if not data:
                self.terminated = self.terminated or "closed"
                continue
            self.receive(data, ack_data=ack_data)

    def receive(self, data, ack_data=True):
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError as error:
            self.terminated = f"protocol error: {error}"
            return
        for event in events:
            self.handle(event, ack_data)
        self.flush()

    def handle(self, event, ack_data):
        if isinstance(event, h2.events.ResponseReceived):
            self._response(event.stream_id)["headers"] = event.headers
        elif isinstance(event, h2.events.TrailersReceived):
            self._response(event.stream_id)["trailers"] = event.headers
        elif isinstance(event, h2.events.DataReceived):
            response = self._response(event.stream_id)
            if len(response["data"]) < (1 << 20):
                response["data"] += event.data
            response["data_bytes"] += len(event.data)
            if ack_data and event.flow_controlled_length:
                try:
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                    pass
        elif isinstance(event, h2.events.StreamEnded):
            self._response(event.stream_id)["ended"] = True
        elif isinstance(event, h2.events.StreamReset):
            self._response(event.stream_id)["reset"] = event.error_code
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.terminated = f"goaway {getattr(event.error_code, 'name', event.error_code)}"
        elif isinstance(event, h2.events.RemoteSettingsChanged):
            self.got_settings = True
        elif isinstance(event, h2.events.SettingsAcknowledged):
            self.unacked_settings -= 1

    def _response(self, stream):
        return self.responses.setdefault(stream, {"headers": None, "data": bytearray(), "data_bytes": 0,
                                                  "trailers": None, "ended": False, "reset": None})

    def handshake(self, seconds=5.0):
        """Waits for the server's SETTINGS (so its limits, e.g. max concurrent streams, are known) and its
        ACK of ours (so our window settings apply)."""
        return self.pump(seconds, until=lambda: self.got_settings and self.unacked_settings <= 0)

    # Calls

    def start_call(self, path, token=None, extra=(), end_stream=False):
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, request_headers(path, token, extra), end_stream=end_stream)
        self._response(stream)
        return stream

    def send_message(self, stream, payload, end_stream=True):
        data = grpc_message(payload)
        sent = 0
        while sent < len(data):
            window = min(self.conn.local_flow_control_window(stream), self.conn.max_outbound_frame_size)
            if window <= 0:
                self.flush()
                if not self.pump(5.0, until=lambda: self.conn.local_flow_control_window(stream) > 0):
                    raise TimeoutError("no flow-control window to send the message")
                continue
            chunk = data[sent:sent + window]
            sent += len(chunk)
            self.conn.send_data(stream, chunk, end_stream=end_stream and sent == len(data))
            self.flush()
        if not data and end_stream:
            self.conn.end_stream(stream)
        self.flush()

    def status(self, stream):
        """grpc-status of a finished stream (from trailers or a trailers-only response), else None."""
        response = self.responses.get(stream)
        if not response:
            return None
        for block in (response["trailers"], response["headers"]):
            for name, value in block or []:
                if name == "grpc-status":
                    return int(value)
        return None

    def message(self, stream):
        response = self.responses.get(stream) or {}
        for block in (response.get("trailers"), response.get("headers")):
            for name, value in block or []:
                if name == "grpc-message":
                    return value
        return ""

    def done(self, stream):
        response = self.responses.get(stream)
        return bool(response) and (response["ended"] or response["reset"] is not None)

    def call(self, path, payload=b"", token=None, extra=(), seconds=5.0):
        """A unary call; returns (grpc-status or None, description)."""
        stream = self.start_call(path, token, extra)
        self.send_message(stream, payload)
        self.pump(seconds, until=lambda: self.done(stream))
        response = self.responses[stream]
        if response["reset"] is not None:
            return None, f"RST_STREAM {getattr(response['reset'], 'name', response['reset'])}"
        status = self.status(stream)
        if status is None:
            return None, f"no status ({self.terminated or 'timed out'})"
        return status, self.message(stream)

    def goaway_and_close(self):
        try:
            self.conn.close_connection()
            self.flush(time.monotonic() + 1.0)
        except Exception:
            pass
        self.sock.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
