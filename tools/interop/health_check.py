"""Asks a server whether it serves: grpc.health.v1.Health/Check.

Usage: health_check.py [HOST:PORT | unix:PATH] [--service NAME]
Prints the status and exits 0 if SERVING, 1 otherwise, 2 if unreachable.
"""
import argparse
import sys

import grpc

from common import health_pb2, health_pb2_grpc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", default="127.0.0.1:7070")
    parser.add_argument("--service", default="")
    args = parser.parse_args()
    with grpc.insecure_channel(args.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=args.service), timeout=5)
        except grpc.RpcError as error:
            print(f"{error.code().name}: {error.details()}")
            sys.exit(2)
    name = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(name)
    sys.exit(0 if name == "SERVING" else 1)


if __name__ == "__main__":
    main()
