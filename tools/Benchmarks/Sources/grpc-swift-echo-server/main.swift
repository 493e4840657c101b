// The echo service (Protos/hearth/echo/v1/echo.proto) on grpc-swift-2: the peer that
// tools/Benchmarks/run.sh measures HearthWire against. Behaviour matches HearthTesting's
// EchoService; the glue to GRPCCore's router is written by hand (no grpc-swift code generator).
//
//     grpc-swift-echo-server --port 0        # 127.0.0.1, OS-chosen port; prints `LISTENING <port>`
//     grpc-swift-echo-server --unix PATH     # Unix domain socket; prints `LISTENING unix:<PATH>`
import EchoServerCommandLine
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import HearthTesting
import SwiftProtobuf

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

typealias EchoRequest = Hearth_Echo_V1_EchoRequest
typealias EchoResponse = Hearth_Echo_V1_EchoResponse
typealias ExpandRequest = Hearth_Echo_V1_ExpandRequest

/// The four methods of `hearth.echo.v1.Echo`.
enum EchoMethod {
    static let service = ServiceDescriptor(fullyQualifiedService: "hearth.echo.v1.Echo")
    static let get = MethodDescriptor(service: service, method: "Get", type: .unary)
    static let expand = MethodDescriptor(service: service, method: "Expand", type: .serverStreaming)
    static let collect = MethodDescriptor(service: service, method: "Collect", type: .clientStreaming)
    static let update = MethodDescriptor(service: service, method: "Update", type: .bidirectionalStreaming)
}

struct EchoService: RegistrableRPCService {
    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(
            forMethod: EchoMethod.get,
            deserializer: ProtobufDeserializer<EchoRequest>(),
            serializer: ProtobufSerializer<EchoResponse>()
        ) { stream, _ in
            let request = try await ServerRequest(stream: stream)
            let echoed = EchoedMetadata(request.metadata)
            try await Self.honour(request.message, echoed: echoed)
            var response = EchoResponse()
            response.text = request.message.text
            response.payload = request.message.payload
            return StreamingServerResponse(
                single: ServerResponse(
                    message: response,
                    metadata: echoed.initial,
                    trailingMetadata: echoed.trailing
                )
            )
        }

        router.registerHandler(
            forMethod: EchoMethod.expand,
            deserializer: ProtobufDeserializer<ExpandRequest>(),
            serializer: ProtobufSerializer<EchoResponse>()
        ) { stream, _ in
            let request = try await ServerRequest(stream: stream)
            let echoed = EchoedMetadata(request.metadata)
            let text = request.message.text
            let count = UInt64(request.message.count)
            let size = Int(request.message.payloadSize)
            return StreamingServerResponse(metadata: echoed.initial) { writer in
                for index in 0..<count {
                    var response = EchoResponse()
                    response.text = text
                    response.index = index
                    if size > 0 { response.payload = Data(repeating: UInt8(truncatingIfNeeded: index), count: size) }
                    try await writer.write(response)
                }
                return echoed.trailing
            }
        }

        router.registerHandler(
            forMethod: EchoMethod.collect,
            deserializer: ProtobufDeserializer<EchoRequest>(),
            serializer: ProtobufSerializer<EchoResponse>()
        ) { stream, _ in
            let echoed = EchoedMetadata(stream.metadata)
            var texts: [String] = []
            var payload = Data()
            for try await request in stream.messages {
                texts.append(request.text)
                payload.append(request.payload)
            }
            var response = EchoResponse()
            response.text = texts.joined(separator: " ")
            response.payload = payload
            response.index = UInt64(texts.count)
            return StreamingServerResponse(
                single: ServerResponse(
                    message: response,
                    metadata: echoed.initial,
                    trailingMetadata: echoed.trailing
                )
            )
        }

        router.registerHandler(
            forMethod: EchoMethod.update,
            deserializer: ProtobufDeserializer<EchoRequest>(),
            serializer: ProtobufSerializer<EchoResponse>()
        ) { stream, _ in
            let echoed = EchoedMetadata(stream.metadata)
            return StreamingServerResponse(metadata: echoed.initial) { writer in
                var index: UInt64 = 0
                for try await request in stream.messages {
                    try await Self.honour(request, echoed: echoed)
                    var response = EchoResponse()
                    response.text = request.text
                    response.payload = request.payload
                    response.index = index
                    try await writer.write(response)
                    index += 1
                }
                return echoed.trailing
            }
        }
    }

    /// Applies the request's `delay_ms`, then its `fail_with_code` (the error's trailers still
    /// carry the echoed metadata).
    static func honour(_ request: EchoRequest, echoed: EchoedMetadata) async throws {
        if request.delayMs > 0 {
            try await Task.sleep(for: .milliseconds(Int(request.delayMs)))
        }
        if request.failWithCode != 0 {
            let code = Status.Code(rawValue: Int(request.failWithCode)).flatMap { RPCError.Code($0) } ?? .unknown
            throw RPCError(code: code, message: "requested failure", metadata: echoed.trailing)
        }
    }
}

/// Request metadata whose key starts with `x-echo-`, to send back as initial metadata, and the
/// same entries renamed `x-echo-trailer-<rest>` for the trailers.
struct EchoedMetadata: Sendable {
    var initial = Metadata()
    var trailing = Metadata()

    init(_ request: Metadata) {
        let prefix = "x-echo-"
        for (key, value) in request where key.hasPrefix(prefix) {
            let trailerKey = "x-echo-trailer-" + key.dropFirst(prefix.count)
            switch value {
            case .string(let text):
                initial.addString(text, forKey: key)
                trailing.addString(text, forKey: trailerKey)
            case .binary(let bytes):
                initial.addBinary(bytes, forKey: key)
                trailing.addBinary(bytes, forKey: trailerKey)
            }
        }
    }
}

// MARK: - Command line

let listen = Listen.fromCommandLine(program: "grpc-swift-echo-server")
let address: GRPCNIOTransportHTTP2.SocketAddress =
    switch listen {
    case .port(let port): .ipv4(host: "127.0.0.1", port: port)
    case .unix(let path): .unixDomainSocket(path: path)
    }
// With --tls-cert/--tls-key: TLS through grpc-swift-nio-transport's own configuration (ALPN h2).
let security: HTTP2ServerTransport.Posix.TransportSecurity =
    if let tls = TLSFiles.fromCommandLine() {
        .tls(
            certificateChain: [.file(path: tls.certificate, format: .pem)],
            privateKey: .file(path: tls.key, format: .pem))
    } else {
        .plaintext
    }
let transport = HTTP2ServerTransport.Posix(address: address, transportSecurity: security)
let server = GRPCServer(transport: transport, services: [EchoService()])

try await withThrowingDiscardingTaskGroup { group in
    group.addTask { try await server.serve() }
    let bound = try await transport.listeningAddress
    listen.announce(boundPort: bound.ipv4?.port ?? bound.ipv6?.port)
}
