import HearthTesting
public import HearthWire
import SwiftProtobuf

/// The echo service's four methods (`hearth.echo.v1.Echo`) without what would make a fuzz run slow or
/// unbounded: no `delay_ms` sleep, and `Expand` sends at most 3 responses of at most 64 payload bytes.
/// `fail_with_code` is honoured, so error statuses after a response has started are reached too.
public struct FuzzEchoService: WireService {
    public init() {}

    public func register(into router: inout ServiceRouter) {
        router.registerUnary(Echo.get) { request, _ in
            try Self.honour(request)
            return .with {
                $0.text = request.text
                $0.payload = request.payload
            }
        }
        router.registerServerStreaming(Echo.expand) { request, writer, _ in
            for index in 0..<UInt64(min(request.count, 3)) {
                try await writer.write(
                    .with {
                        $0.text = request.text
                        $0.index = index
                        $0.payload = .init(repeating: UInt8(truncatingIfNeeded: index), count: Int(min(request.payloadSize, 64)))
                    })
            }
        }
        router.registerClientStreaming(Echo.collect) { requests, _ in
            var texts: [String] = []
            for try await request in requests { texts.append(request.text) }
            return .with {
                $0.text = texts.joined(separator: " ")
                $0.index = UInt64(texts.count)
            }
        }
        router.registerBidirectional(Echo.update) { requests, writer, _ in
            var index: UInt64 = 0
            for try await request in requests {
                try Self.honour(request)
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

    static func honour(_ request: Hearth_Echo_V1_EchoRequest) throws {
        if request.failWithCode != 0 {
            throw RPCError(code: Status.Code(rawValue: Int(request.failWithCode % 17)), message: "requested failure")
        }
    }
}
