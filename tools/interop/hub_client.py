"""Stock grpcio client for the hub's hearth.v1.HomeService.

Usage: hub_client.py COMMAND --target HOST:PORT|unix:PATH --token TOKEN [options]

  info                                   GetHub: prints epoch, revision, user, admin
  watch [--from-revision N --epoch E] [--until-synced] [--count N] [--seconds S]
                                         Watch: one line per change
                                         ("<revision> <kind> <id> <name-or-detail>"),
                                         "SYNCED <revision>", "PROGRESS <revision>",
                                         "RELIST <reason> <epoch>"
  rename-room --room-id ID --name NAME   prints "OK <id> <name> <revision>"
  create-room --structure-id S --name NAME
  rename-device --device-id ID --name NAME
  watch-and-rename --structure-id S      end-to-end case: creates room "py-room",
                                         watches from 0 until synced, renames the
                                         room to "py-renamed" and waits (20 s) for
                                         the watch to show it; prints
                                         "PASS watch-and-rename" (exit 0) or
                                         "FAIL watch-and-rename: reason" (exit 1)

--target and --token go before or after COMMAND; the token is sent as
`authorization: Bearer TOKEN` (default: $HEARTH_TOKEN). Every unary call has a
deadline of --timeout seconds (default 30). A watch stops, with exit 0, after
the synced mark (--until-synced), after N changes (--count), after S seconds
(--seconds), or when the hub ends the stream (e.g. after RELIST); with only
--until-synced/--count it also has the --timeout deadline, with none of the
three it runs until interrupted. A failed call prints "ERROR <CODE>: <details>"
and exits 2 (watch-and-rename reports it as FAIL instead).
"""
import argparse
import os
import sys
import threading

import grpc

from common import client_service_pb2, client_service_pb2_grpc, home_pb2, watch_pb2

CALL_TIMEOUT = 30  # seconds; generous for a 2-core CI machine
E2E_WAIT = 20  # seconds watch-and-rename waits for each step of the watch


class CaseFailed(Exception):
    pass


def metadata(token):
    return [("authorization", f"Bearer {token}")]


def relist_reason(relist):
    return watch_pb2.Relist.Reason.Name(relist.reason)


def describe_change(change):
    """The `<revision> <kind> <id> <name-or-detail>` line for one Change."""
    kind = change.WhichOneof("kind")
    if kind is None:
        return f"{change.revision} unknown - -"
    value = getattr(change, kind)
    if kind in ("structure", "room", "device"):
        ident, detail = value.id, value.name
    elif kind in ("structure_removed", "device_removed"):
        ident, detail = value, "removed"
    elif kind == "room_removed":
        ident, detail = value.room_id, f"structure={value.structure_id}"
    elif kind == "trait":
        state = value.state
        ident = value.device_id
        detail = (f"ep={value.endpoint} trait=0x{state.trait_id:04x} "
                  f"{home_pb2.ConnectivityState.Name(state.connectivity)} attrs={len(state.attributes)}")
    elif kind == "event":
        ident = value.device_id
        detail = f"ep={value.endpoint} trait=0x{value.trait_id:04x} event={value.event_id}"
    else:
        ident, detail = "-", str(value).replace("\n", " ")
    return f"{change.revision} {kind} {ident} {detail}"


# Commands ------------------------------------------------------------------

def cmd_info(stub, args):
    hub = stub.GetHub(client_service_pb2.GetHubRequest(), metadata=metadata(args.token), timeout=args.timeout)
    print(f"epoch {hub.epoch}")
    print(f"revision {hub.revision}")
    print(f"user {hub.user}")
    print(f"admin {'true' if hub.admin else 'false'}")
    if hub.hub_version:
        print(f"hub_version {hub.hub_version}")
    return 0


def cmd_watch(stub, args):
    request = watch_pb2.WatchRequest(from_revision=args.from_revision, epoch=args.epoch or "")
    if args.seconds is not None:
        deadline = args.seconds  # reaching it is the normal end
    elif args.until_synced or args.count is not None:
        deadline = args.timeout
    else:
        deadline = None  # runs until interrupted
    call = stub.Watch(request, metadata=metadata(args.token), timeout=deadline)
    changes = 0
    try:
        for response in call:
            for change in response.changes:
                print(describe_change(change), flush=True)
                changes += 1
                if args.count is not None and changes >= args.count:
                    call.cancel()
                    return 0
            if response.HasField("relist"):
                print(f"RELIST {relist_reason(response.relist)} {response.relist.epoch}", flush=True)
            if response.synced:
                print(f"SYNCED {response.revision}", flush=True)
                if args.until_synced:
                    call.cancel()
                    return 0
            elif not response.changes and not response.HasField("relist"):
                print(f"PROGRESS {response.revision}", flush=True)
    except grpc.RpcError as error:
        if args.seconds is not None and error.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
            return 0
        raise
    return 0  # the hub ended the stream (after a relist, or on shutdown)


def print_object(obj):
    print(f"OK {obj.id} {obj.name} {obj.revision}", flush=True)
    return 0


def cmd_rename_room(stub, args):
    return print_object(stub.RenameRoom(client_service_pb2.RenameRoomRequest(room_id=args.room_id, name=args.name),
                                        metadata=metadata(args.token), timeout=args.timeout))


def cmd_create_room(stub, args):
    return print_object(stub.CreateRoom(
        client_service_pb2.CreateRoomRequest(structure_id=args.structure_id, name=args.name),
        metadata=metadata(args.token), timeout=args.timeout))


def cmd_rename_device(stub, args):
    return print_object(stub.RenameDevice(
        client_service_pb2.RenameDeviceRequest(device_id=args.device_id, name=args.name),
        metadata=metadata(args.token), timeout=args.timeout))


# watch-and-rename ------------------------------------------------------------

class WatchState:
    """What a background watch has seen: room names and revisions, the synced
    revision, broken stream guarantees, and how the stream ended. Guarded by
    `cond`."""

    def __init__(self):
        self.cond = threading.Condition()
        self.rooms = {}  # room id -> (name, change revision)
        self.synced_revision = None
        self.last_revision = 0
        self.ended = None  # a reason string once the stream is over
        self.problem = None  # the first broken guarantee seen

    def wait_for(self, predicate, seconds):
        with self.cond:
            return self.cond.wait_for(lambda: predicate() or self.ended is not None, timeout=seconds) and predicate()


def run_watch(call, state):
    try:
        for response in call:
            with state.cond:
                for change in response.changes:
                    if change.revision < state.last_revision:
                        state.problem = state.problem or f"change revision {change.revision} after {state.last_revision}"
                    state.last_revision = max(state.last_revision, change.revision)
                    if change.WhichOneof("kind") == "room":
                        state.rooms[change.room.id] = (change.room.name, change.revision)
                    elif change.WhichOneof("kind") == "room_removed":
                        state.rooms.pop(change.room_removed.room_id, None)
                if response.HasField("relist"):
                    state.ended = f"unexpected RELIST {relist_reason(response.relist)}"
                if response.synced:
                    if state.synced_revision is not None:
                        state.problem = state.problem or "a second synced mark"
                    state.synced_revision = response.revision
                state.cond.notify_all()
        with state.cond:
            state.ended = state.ended or "the hub ended the watch"
            state.cond.notify_all()
    except grpc.RpcError as error:
        with state.cond:
            if error.code() != grpc.StatusCode.CANCELLED or state.ended is None:
                state.ended = state.ended or f"watch failed: {error.code().name}: {error.details()}"
            state.cond.notify_all()


def watch_and_rename(stub, args):
    md = metadata(args.token)
    room = stub.CreateRoom(client_service_pb2.CreateRoomRequest(structure_id=args.structure_id, name="py-room"),
                           metadata=md, timeout=args.timeout)
    if room.name != "py-room" or not room.id:
        raise CaseFailed(f"CreateRoom answered id {room.id!r} name {room.name!r}")

    state = WatchState()
    call = stub.Watch(watch_pb2.WatchRequest(from_revision=0), metadata=md, timeout=args.timeout + 2 * E2E_WAIT)
    thread = threading.Thread(target=run_watch, args=(call, state), daemon=True)
    thread.start()
    try:
        if not state.wait_for(lambda: state.synced_revision is not None, E2E_WAIT):
            raise CaseFailed(f"no SYNCED within {E2E_WAIT} s ({state.ended or 'still waiting'})")
        synced = state.synced_revision
        with state.cond:
            seen = state.rooms.get(room.id)
        if seen is None or seen[0] != "py-room":
            raise CaseFailed(f"snapshot (synced at {synced}) shows room {room.id} as {seen}, expected 'py-room'")
        if synced < room.revision:
            raise CaseFailed(f"synced revision {synced} is older than the room's creation {room.revision}")

        renamed = stub.RenameRoom(client_service_pb2.RenameRoomRequest(room_id=room.id, name="py-renamed"),
                                  metadata=md, timeout=args.timeout)
        if renamed.id != room.id or renamed.name != "py-renamed" or renamed.revision <= synced:
            raise CaseFailed(f"RenameRoom answered {renamed.id} {renamed.name!r} at {renamed.revision} "
                             f"(synced {synced})")

        def shows_rename():
            name, revision = state.rooms.get(room.id, (None, 0))
            return name == "py-renamed" and revision > synced

        if not state.wait_for(shows_rename, E2E_WAIT):
            with state.cond:
                seen = state.rooms.get(room.id)
            raise CaseFailed(f"watch shows room {room.id} as {seen} after {E2E_WAIT} s, expected 'py-renamed' "
                             f"after revision {synced} ({state.ended or 'stream still open'})")
        with state.cond:
            _, revision = state.rooms[room.id]
        if revision != renamed.revision:
            raise CaseFailed(f"watch shows the rename at revision {revision}, RenameRoom answered {renamed.revision}")
        with state.cond:
            if state.problem:
                raise CaseFailed(f"watch stream: {state.problem}")
    finally:
        with state.cond:
            state.ended = state.ended or "cancelled by the client"
        call.cancel()
        thread.join(timeout=5)
    return 0


def cmd_watch_and_rename(stub, args):
    name = "watch-and-rename"
    try:
        watch_and_rename(stub, args)
    except CaseFailed as failure:
        print(f"FAIL {name}: {failure}", flush=True)
        return 1
    except grpc.RpcError as error:
        print(f"FAIL {name}: unexpected {error.code().name}: {error.details()}", flush=True)
        return 1
    except Exception as error:  # a harness bug: still a clear FAIL line
        print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
        return 1
    print(f"PASS {name}", flush=True)
    return 0


# Command line ----------------------------------------------------------------

def build_parser():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split("\n", 2)[2],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    # Accepted before or after the command: the subcommands' copies default to
    # SUPPRESS so they do not overwrite a value given before the command.
    common = argparse.ArgumentParser(add_help=False)
    for target in (parser, common):
        suppress = target is common
        target.add_argument("--target", default=argparse.SUPPRESS if suppress else None,
                            help="HOST:PORT or unix:PATH")
        target.add_argument("--token", default=argparse.SUPPRESS if suppress else os.environ.get("HEARTH_TOKEN"),
                            help="client token (default: $HEARTH_TOKEN)")
        target.add_argument("--timeout", type=float, default=argparse.SUPPRESS if suppress else CALL_TIMEOUT,
                            help=f"deadline of each call in seconds (default {CALL_TIMEOUT})")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    sub = commands.add_parser("info", parents=[common], help="GetHub")
    sub.set_defaults(run=cmd_info)

    sub = commands.add_parser("watch", parents=[common], help="Watch, one line per change")
    sub.add_argument("--from-revision", type=int, default=0)
    sub.add_argument("--epoch", help="the epoch --from-revision belongs to (required with it)")
    sub.add_argument("--until-synced", action="store_true", help="stop after the synced mark")
    sub.add_argument("--count", type=int, help="stop after N changes")
    sub.add_argument("--seconds", type=float, help="stop after S seconds")
    sub.set_defaults(run=cmd_watch)

    sub = commands.add_parser("rename-room", parents=[common], help="RenameRoom")
    sub.add_argument("--room-id", required=True)
    sub.add_argument("--name", required=True)
    sub.set_defaults(run=cmd_rename_room)

    sub = commands.add_parser("create-room", parents=[common], help="CreateRoom")
    sub.add_argument("--structure-id", required=True)
    sub.add_argument("--name", required=True)
    sub.set_defaults(run=cmd_create_room)

    sub = commands.add_parser("rename-device", parents=[common], help="RenameDevice")
    sub.add_argument("--device-id", required=True)
    sub.add_argument("--name", required=True)
    sub.set_defaults(run=cmd_rename_device)

    sub = commands.add_parser("watch-and-rename", parents=[common], help="end-to-end watch + rename case")
    sub.add_argument("--structure-id", required=True)
    sub.set_defaults(run=cmd_watch_and_rename)
    return parser


def main():
    parser = build_parser()
    args = parser.parse_args()
    if not args.target:
        parser.error("--target HOST:PORT|unix:PATH is required")
    if not args.token:
        parser.error("--token is required (or set HEARTH_TOKEN)")
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    if args.command == "watch":
        if args.from_revision < 0:
            parser.error("--from-revision must not be negative")
        if args.from_revision and not args.epoch:
            parser.error("--from-revision needs --epoch (from `info` or an earlier watch)")
        if args.count is not None and args.count <= 0:
            parser.error("--count must be positive")
        if args.seconds is not None and args.seconds <= 0:
            parser.error("--seconds must be positive")

    with grpc.insecure_channel(args.target) as channel:
        stub = client_service_pb2_grpc.HomeServiceStub(channel)
        try:
            code = args.run(stub, args)
        except grpc.RpcError as error:
            print(f"ERROR {error.code().name}: {error.details()}", flush=True)
            code = 2
        except KeyboardInterrupt:
            code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()
