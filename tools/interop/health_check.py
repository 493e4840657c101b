"""Asks a server whether it serves: grpc.health.v1.Health/Check.

Usage: health_check.py [HOST:PORT | unix:PATH] [--service NAME]
                       [--tls-ca PEM [--tls-cert PEM --tls-key PEM] [--tls-server-name NAME]]
Prints the status and exits 0 if SERVING, 1 otherwise, 2 if unreachable.
With --tls-ca it connects over TLS (grpc.ssl_channel_credentials) trusting that PEM file, presenting
a client certificate when --tls-cert and --tls-key are given.
"""
import argparse
import sys

import grpc

from common import health_pb2, health_pb2_grpc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", default="127.0.0.1:7070")
    parser.add_argument("--service", default="")
    parser.add_argument("--tls-ca", help="PEM roots to trust; connects over TLS")
    parser.add_argument("--tls-cert", help="PEM client certificate (mutual TLS)")
    parser.add_argument("--tls-key", help="PEM private key of --tls-cert")
    parser.add_argument("--tls-server-name", help="name to check the server's certificate against")
    parser.add_argument("--timeout", type=float, default=5, help="the call's deadline in seconds, connecting included")
    args = parser.parse_args()
    if args.tls_ca:
        def read(path):
            with open(path, "rb") as f:
                return f.read()

        credentials = grpc.ssl_channel_credentials(
            root_certificates=read(args.tls_ca),
            private_key=read(args.tls_key) if args.tls_key else None,
            certificate_chain=read(args.tls_cert) if args.tls_cert else None,
        )
        options = [("grpc.ssl_target_name_override", args.tls_server_name)] if args.tls_server_name else []
        channel = grpc.secure_channel(args.target, credentials, options=options)
    else:
        channel = grpc.insecure_channel(args.target)
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout)
        except grpc.RpcError as error:
            print(f"{error.code().name}: {error.details()}")
            sys.exit(2)
    name = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(name)
    sys.exit(0 if name == "SERVING" else 1)


if __name__ == "__main__":
    main()
