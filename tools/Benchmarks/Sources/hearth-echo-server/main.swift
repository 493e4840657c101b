// The echo service (Protos/hearth/echo/v1/echo.proto) on HearthWire: HearthTesting's
// EchoService behind a WireServer with its default configuration (handlers on the event loop).
// tools/Benchmarks/run.sh measures it against grpc-swift-echo-server.
//
//     hearth-echo-server --port 0        # 127.0.0.1, OS-chosen port; prints `LISTENING <port>`
//     hearth-echo-server --unix PATH     # Unix domain socket; prints `LISTENING unix:<PATH>`
//     hearth-echo-server --port 0 --tls-cert cert.pem --tls-key key.pem   # TLS (ALPN h2) on TCP
//
// SIGTERM ends the process (the benchmark does not measure shutdown).
import EchoServerCommandLine
import HearthTesting
import HearthWire
import NIOCore


let listen = Listen.fromCommandLine(program: "hearth-echo-server")
let target: WireServer.BindTarget =
    switch listen {
    case .port(let port): .tcp(host: "127.0.0.1", port: port)
    case .unix(let path): .unix(path: path)
    }
var configuration = WireServer.Configuration()
if let tls = TLSFiles.fromCommandLine() {
    configuration.tls = WireServer.TLS(certificateChain: tls.certificate, privateKey: tls.key)
}
let server = WireServer(listeningOn: [target], services: [EchoService(), HealthService()], configuration: configuration)

try await withThrowingDiscardingTaskGroup { group in
    group.addTask { try await server.run() }
    listen.announce(boundPort: try await server.listeningAddresses()[0].port)
}
