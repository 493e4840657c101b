// The echo service (Protos/hearth/echo/v1/echo.proto) on HearthWire: HearthTesting's
// EchoService behind a WireServer with its default configuration (handlers on the event loop).
// tools/Benchmarks/run.sh measures it against grpc-swift-echo-server.
//
//     hearth-echo-server --port 0        # 127.0.0.1, OS-chosen port; prints `LISTENING <port>`
//     hearth-echo-server --unix PATH     # Unix domain socket; prints `LISTENING unix:<PATH>`
//
// SIGTERM ends the process (the benchmark does not measure shutdown).
import HearthTesting
import HearthWire
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func usage(_ problem: String) -> Never {
    var message = "error: \(problem)\nusage: hearth-echo-server [--port N | --unix PATH]   (default --port 0)\n"
    message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(2)
}

var port = 0
var unixPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--port":
        guard let value = arguments.popFirst(), let number = Int(value), (0...65535).contains(number) else {
            usage("--port needs a number from 0 to 65535")
        }
        port = number
    case "--unix":
        guard let value = arguments.popFirst(), !value.isEmpty else { usage("--unix needs a path") }
        unixPath = value
    case "-h", "--help":
        print("usage: hearth-echo-server [--port N | --unix PATH]   (default --port 0)")
        exit(0)
    default:
        usage("unknown argument '\(argument)'")
    }
}

let target: WireServer.BindTarget =
    if let unixPath { .unix(path: unixPath) } else { .tcp(host: "127.0.0.1", port: port) }
let server = WireServer(listeningOn: [target], services: [EchoService(), HealthService()])

try await withThrowingDiscardingTaskGroup { group in
    group.addTask { try await server.run() }
    let bound = try await server.listeningAddresses()[0]
    if let unixPath {
        print("LISTENING unix:\(unixPath)")
    } else {
        print("LISTENING \(bound.port ?? port)")
    }
    fflush(nil)  // stdout may be a pipe: the caller waits for this line
}
