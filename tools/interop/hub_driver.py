"""A driver written with stock grpcio against hearth.v1.DriverService (stubs from Protos/).

Usage: hub_driver.py --target HOST:PORT|unix:PATH --token TOKEN [--device ID] [--commands N]
                     [--report-foreign DEVICE_ID] [--hang-device ID] [--seconds S]

Opens the Connect stream, says Hello, announces one on/off light (Identify and
OnOff on endpoint 1) and answers OnOff commands (Off 0x00, On 0x01, Toggle
0x02) by reporting the new state and returning an empty result; any other
command gets UNIMPLEMENTED. Prints one line per event:

  WELCOME <driver-id> <epoch>
  ANNOUNCED <accepted ids>           (or REJECTED <subject> <code> <message>)
  COMMAND <trait>/<command> <device> -> onOff=<bool>
  REJECTED <subject> <code> <message>   a rejection the hub sent
  PASS driver                        after --commands commands (exit 0)

With --hang-device ID it also announces a second light with that id and never
answers its commands (a hung device); commands to the first still work. Only
answered commands count towards --commands.

With --report-foreign it also reports an attribute of another driver's
device right after the announcement, and expects the hub to refuse it
(PERMISSION_DENIED or NOT_FOUND): the rejection line is printed and the
run goes on. Exits 1 with "FAIL driver: <reason>" after --seconds (default
60) without enough commands, and 2 on a call error ("ERROR <CODE>: ...").
"""
import argparse
import queue
import sys
import threading

import grpc

from common import driver_service_pb2, driver_service_pb2_grpc, home_pb2, values_pb2

ON_OFF = 0x0006
IDENTIFY = 0x0003
ON_OFF_LIGHT = 0x0100


def bool_value(b):
    return values_pb2.Value(bool_value=b)


def announcement(device):
    identify = driver_service_pb2.AnnouncedTrait(
        trait_id=IDENTIFY, attributes=[home_pb2.Attribute(id=0, value=values_pb2.Value(uint_value=0))])
    on_off = driver_service_pb2.AnnouncedTrait(
        trait_id=ON_OFF, attributes=[home_pb2.Attribute(id=0, value=bool_value(False))])
    light = driver_service_pb2.AnnouncedType(
        endpoint=1, device_type_id=ON_OFF_LIGHT, primary=True, traits=[identify, on_off])
    return driver_service_pb2.DeviceAnnouncement(
        id=device, suggested_name="Python lamp", is_matter_device=True, types=[light])


def report(device, on):
    trait = driver_service_pb2.TraitReport(
        device_id=device, endpoint=1, trait_id=ON_OFF, attributes=[home_pb2.Attribute(id=0, value=bool_value(on))])
    return driver_service_pb2.DriverMessage(report=driver_service_pb2.Report(traits=[trait]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--device", default="py-lamp")
    parser.add_argument("--commands", type=int, default=1)
    parser.add_argument("--report-foreign")
    parser.add_argument("--hang-device")
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()

    outbox = queue.Queue()
    done = threading.Event()

    def requests():
        while True:
            message = outbox.get()
            if message is None:
                return
            yield message

    outbox.put(driver_service_pb2.DriverMessage(hello=driver_service_pb2.Hello(driver_version="py-1")))
    channel = grpc.insecure_channel(args.target)
    stub = driver_service_pb2_grpc.DriverServiceStub(channel)
    responses = stub.Connect(requests(), metadata=[("authorization", f"Bearer {args.token}")])
    state = {"on": False, "handled": 0}
    timer = threading.Timer(args.seconds, lambda: (print("FAIL driver: not enough commands in time", flush=True),
                                                   responses.cancel()))
    timer.start()
    try:
        for message in responses:
            kind = message.WhichOneof("kind")
            if kind == "welcome":
                print(f"WELCOME {message.welcome.driver_id} {message.welcome.epoch}", flush=True)
                devices = [announcement(args.device)] + ([announcement(args.hang_device)] if args.hang_device else [])
                outbox.put(driver_service_pb2.DriverMessage(announce=driver_service_pb2.Announce(devices=devices)))
            elif kind == "announce_result":
                result = message.announce_result
                print("ANNOUNCED " + " ".join(result.accepted), flush=True)
                for rejection in result.rejected:
                    print(f"REJECTED {rejection.subject} {rejection.code} {rejection.message}", flush=True)
                if args.report_foreign:
                    outbox.put(report(args.report_foreign, True))
            elif kind == "rejection":
                r = message.rejection
                print(f"REJECTED {r.subject} {r.code} {r.message}", flush=True)
            elif kind == "command":
                command = message.command
                if command.device_id == args.hang_device:
                    print(f"HANGING {command.trait_id}/{command.command_id} {command.device_id}", flush=True)
                    continue
                result = driver_service_pb2.CommandResult(correlation_id=command.correlation_id)
                if command.trait_id == ON_OFF and command.command_id in (0, 1, 2):
                    state["on"] = {0: False, 1: True, 2: not state["on"]}[command.command_id]
                    outbox.put(report(command.device_id, state["on"]))
                    print(f"COMMAND {command.trait_id}/{command.command_id} {command.device_id} -> "
                          f"onOff={str(state['on']).lower()}", flush=True)
                else:
                    result.error_code = grpc.StatusCode.UNIMPLEMENTED.value[0]
                    result.error_message = "the Python driver only handles OnOff"
                outbox.put(driver_service_pb2.DriverMessage(result=result))
                state["handled"] += 1
                if state["handled"] >= args.commands and not done.is_set():
                    print("PASS driver", flush=True)
                    done.set()
                    # Half-close after what is queued; the hub then ends the stream and the loop.
                    outbox.put(None)
            elif kind == "write":
                outbox.put(driver_service_pb2.DriverMessage(result=driver_service_pb2.CommandResult(
                    correlation_id=message.write.correlation_id)))
    except grpc.RpcError as error:
        if not done.is_set() and error.code() != grpc.StatusCode.CANCELLED:
            print(f"ERROR {error.code().name}: {error.details()}", flush=True)
            return 2
    finally:
        timer.cancel()
        outbox.put(None)
        channel.close()
    return 0 if done.is_set() else 1


if __name__ == "__main__":
    sys.exit(main())
