#!/usr/bin/env python3
"""A driver announcing many on/off lights at once, for the dashboard's 10,000-device case.

    bulk_driver.py --target HOST:PORT|unix:PATH --token TOKEN --devices N [--rooms R] [--seconds S]

Connects to hearth.v1.DriverService with stock grpcio, announces N OnOff lights spread over R rooms
("Bulk room 01", …, suggested rooms the hub creates), prints `ANNOUNCED <accepted count>`, answers OnOff
commands by reporting the new state, and stays connected until standard input closes or S seconds pass.
"""
import argparse
import os
import queue
import sys
import threading

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from common import driver_service_pb2 as d, driver_service_pb2_grpc, home_pb2, values_pb2  # noqa: E402

IDENTIFY, ON_OFF, ON_OFF_LIGHT = 0x0003, 0x0006, 0x0100


def light(index: int, rooms: int) -> d.DeviceAnnouncement:
    off = values_pb2.Value(bool_value=False)
    on_off = d.AnnouncedTrait(trait_id=ON_OFF, attributes=[home_pb2.Attribute(id=0, value=off)])
    identify = d.AnnouncedTrait(trait_id=IDENTIFY, attributes=[home_pb2.Attribute(id=0, value=values_pb2.Value(uint_value=0))])
    kind = d.AnnouncedType(endpoint=1, device_type_id=ON_OFF_LIGHT, primary=True, traits=[identify, on_off])
    return d.DeviceAnnouncement(id=f"bulk-{index:05d}", suggested_name=f"Bulk light {index:05d}", is_matter_device=True,
                                types=[kind], suggested_room=f"Bulk room {index % rooms + 1:02d}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--devices", type=int, default=10000)
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=600)
    args = parser.parse_args()

    outbox: queue.Queue = queue.Queue()
    outbox.put(d.DriverMessage(hello=d.Hello(driver_version="bulk-1")))

    def requests():
        while (message := outbox.get()) is not None:
            yield message

    channel = grpc.insecure_channel(args.target, options=[("grpc.max_send_message_length", 16 << 20)])
    responses = driver_service_pb2_grpc.DriverServiceStub(channel).Connect(
        requests(), metadata=[("authorization", f"Bearer {args.token}")])
    stop = lambda: (outbox.put(None), responses.cancel())  # noqa: E731
    threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()
    timer = threading.Timer(args.seconds, stop)
    timer.start()
    states: dict = {}
    try:
        for message in responses:
            kind = message.WhichOneof("kind")
            if kind == "welcome":
                devices = [light(i, args.rooms) for i in range(args.devices)]
                outbox.put(d.DriverMessage(announce=d.Announce(devices=devices)))
            elif kind == "announce_result":
                result = message.announce_result
                print(f"ANNOUNCED {len(result.accepted)}", flush=True)
                for rejection in result.rejected[:3]:
                    print(f"REJECTED {rejection.subject} {rejection.code} {rejection.message}", flush=True)
            elif kind == "command":
                command = message.command
                result = d.CommandResult(correlation_id=command.correlation_id)
                if command.trait_id == ON_OFF and command.command_id in (0, 1, 2):
                    on = {0: False, 1: True, 2: not states.get(command.device_id, False)}[command.command_id]
                    states[command.device_id] = on
                    attribute = home_pb2.Attribute(id=0, value=values_pb2.Value(bool_value=on))
                    report = d.TraitReport(device_id=command.device_id, endpoint=1, trait_id=ON_OFF, attributes=[attribute])
                    outbox.put(d.DriverMessage(report=d.Report(traits=[report])))
                else:
                    result.error_code = grpc.StatusCode.UNIMPLEMENTED.value[0]
                    result.error_message = "the bulk driver only handles OnOff"
                outbox.put(d.DriverMessage(result=result))
            elif kind == "write":
                outbox.put(d.DriverMessage(result=d.CommandResult(correlation_id=message.write.correlation_id)))
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.CANCELLED:
            print(f"ERROR {error.code().name}: {error.details()}", flush=True)
            return 2
    finally:
        timer.cancel()
        channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
