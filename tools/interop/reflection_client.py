"""Server reflection checked with grpcio-reflection's client, as grpcurl would use it.

Usage: reflection_client.py --target HOST:PORT --service NAME... [--describe-symbol NAME]...

Cases (each prints PASS <case> or FAIL <case>: reason; exit 0 only when all pass):
  list_v1alpha    grpcio-reflection's descriptor database (v1alpha) lists exactly the --service names.
  describe        every listed service resolves through a DescriptorPool built on that database, with each
                  method's request and response message types, and every --describe-symbol too.
  list_v1         the same list through grpc.reflection.v1 (v1 and v1alpha are the same messages on the wire).
  file_v1         a file by name through v1 comes back with the file asked for first.
  not_found_v1    an unknown symbol answers NOT_FOUND (error_code 5) and the stream stays usable.
"""
import argparse
import sys
import traceback

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

V1_METHOD = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def ask_v1(channel, requests):
    call = channel.stream_stream(
        V1_METHOD, request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    return list(call(iter(requests), timeout=10))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True)
    parser.add_argument("--service", action="append", required=True)
    parser.add_argument("--describe-symbol", action="append", default=[])
    args = parser.parse_args()
    expected = sorted(args.service)
    failed = 0
    with grpc.insecure_channel(args.target) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)

        def list_v1alpha():
            services = sorted(database.get_services())
            check(services == expected, f"services {services}, expected {expected}")

        def describe():
            pool = descriptor_pool.DescriptorPool(database)
            for name in expected:
                service = pool.FindServiceByName(name)
                check(service.methods, f"{name} has no methods")
                for method in service.methods:
                    check(method.input_type.full_name and method.output_type.full_name, f"{method.full_name}")
            for symbol in args.describe_symbol:
                check(pool.FindMessageTypeByName(symbol).fields, f"{symbol} has no fields")

        def list_v1():
            answers = ask_v1(channel, [reflection_pb2.ServerReflectionRequest(list_services="")])
            services = sorted(s.name for s in answers[0].list_services_response.service)
            check(services == expected, f"v1 services {services}")

        def file_v1():
            answers = ask_v1(channel, [reflection_pb2.ServerReflectionRequest(file_containing_symbol=expected[0])])
            name = descriptor_pb2.FileDescriptorProto.FromString(
                answers[0].file_descriptor_response.file_descriptor_proto[0]).name
            answers = ask_v1(channel, [reflection_pb2.ServerReflectionRequest(file_by_filename=name)])
            files = [descriptor_pb2.FileDescriptorProto.FromString(b).name
                     for b in answers[0].file_descriptor_response.file_descriptor_proto]
            check(files and files[0] == name, f"files {files} for {name}")

        def not_found_v1():
            answers = ask_v1(channel, [reflection_pb2.ServerReflectionRequest(file_containing_symbol="no.such.Thing"),
                                       reflection_pb2.ServerReflectionRequest(list_services="")])
            check(answers[0].error_response.error_code == 5, f"error {answers[0].error_response}")
            check(len(answers[1].list_services_response.service) == len(expected), "the stream stopped answering")

        for case in (list_v1alpha, describe, list_v1, file_v1, not_found_v1):
            try:
                case()
                print(f"PASS {case.__name__}", flush=True)
            except Failure as failure:
                failed += 1
                print(f"FAIL {case.__name__}: {failure}", flush=True)
            except Exception:  # noqa: BLE001
                failed += 1
                print(f"FAIL {case.__name__}: {traceback.format_exc()}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
