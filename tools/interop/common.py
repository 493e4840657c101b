"""Shared helpers for the interop scripts: the generated stubs' import path."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))

from hearth.echo.v1 import echo_pb2, echo_pb2_grpc  # noqa: E402
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # noqa: E402
from hearth.v1 import client_service_pb2, client_service_pb2_grpc  # noqa: E402
from hearth.v1 import home_pb2, watch_pb2  # noqa: E402
from hearth.v1 import driver_service_pb2, driver_service_pb2_grpc, values_pb2  # noqa: E402

ECHO_PREFIX = "x-echo-"
TRAILER_PREFIX = "x-echo-trailer-"


def echoed_metadata(invocation_metadata):
    """The x-echo-* request entries, and the same renamed for the trailers."""
    initial = [(k, v) for k, v in invocation_metadata if k.startswith(ECHO_PREFIX)]
    trailing = [(TRAILER_PREFIX + k[len(ECHO_PREFIX):], v) for k, v in initial]
    return initial, trailing


__all__ = ["echo_pb2", "echo_pb2_grpc", "health", "health_pb2", "health_pb2_grpc", "echoed_metadata",
           "client_service_pb2", "client_service_pb2_grpc", "home_pb2", "watch_pb2",
           "driver_service_pb2", "driver_service_pb2_grpc", "values_pb2"]
