import SwiftProtobuf
import Foundation
public import HearthWire

/// The echo service, as `Protos/hearth/echo/v1/echo.proto` and
/// `tools/interop/README.md` define it: the wire layer's test and benchmark
/// service. The Python interop server implements the same behaviour.
public struct EchoService: WireService {
    public init() {}

    public func register(into router: inout ServiceRouter) {
        router.registerUnary(Echo.get) { request, context in
            Self.echoMetadata(context)
            try await Self.honour(request)
            return .with {
                $0.text = request.text
                $0.payload = request.payload
            }
        }
        router.registerServerStreaming(Echo.expand) { request, writer, context in
            Self.echoMetadata(context)
            let size = Int(request.payloadSize)
            for index in 0..<UInt64(request.count) {
                try await writer.write(
                    .with {
                        $0.text = request.text
                        $0.index = index
                        if size > 0 { $0.payload = Self.payload(size: size, index: index) }
                    })
            }
        }
        router.registerClientStreaming(Echo.collect) { requests, context in
            Self.echoMetadata(context)
            var texts: [String] = []
            var payload = Data()
            for try await request in requests {
                texts.append(request.text)
                payload.append(request.payload)
            }
            return .with {
                $0.text = texts.joined(separator: " ")
                $0.index = UInt64(texts.count)
                $0.payload = payload
            }
        }
        router.registerBidirectional(Echo.update) { requests, writer, context in
            Self.echoMetadata(context)
            var index: UInt64 = 0
            for try await request in requests {
                try await Self.honour(request)
                try await writer.write(
                    .with {
                        $0.text = request.text
                        $0.payload = request.payload
                        $0.index = index
                    })
                index += 1
            }
        }
    }

    /// Applies `delay_ms` and `fail_with_code`.
    static func honour(_ request: Hearth_Echo_V1_EchoRequest) async throws {
        if request.delayMs > 0 {
            try await Task.sleep(for: .milliseconds(Int(request.delayMs)))
        }
        if request.failWithCode != 0 {
            throw RPCError(code: Status.Code(rawValue: Int(request.failWithCode)), message: "requested failure")
        }
    }

    /// Sends `x-echo-*` request metadata back in the response headers and,
    /// renamed `x-echo-trailer-*`, in the trailers.
    static func echoMetadata(_ context: ServerContext) {
        var initial = Metadata()
        var trailing = Metadata()
        for entry in context.requestMetadata where entry.key.hasPrefix("x-echo-") {
            initial.append(entry)
            trailing.append((key: "x-echo-trailer-" + entry.key.dropFirst("x-echo-".count), value: entry.value))
        }
        guard !initial.isEmpty else { return }
        context.initialMetadata = initial
        context.trailingMetadata = trailing
    }

    /// Every byte of response `index`'s payload is `index % 256`.
    static func payload(size: Int, index: UInt64) -> Data {
        Data(repeating: UInt8(index % 256), count: size)
    }
}
