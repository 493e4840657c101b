import NIOCore
import Synchronization
import Testing

@testable import HearthWire

/// The bridge between a stream's loop side and its task, driven by hand: no sockets, no loop.
@Suite("StreamBridge: writes and the end of a stream")
struct StreamBridgeTests {
    private static let limits = StreamBridge.Limits(outboundHighWatermark: 1024, outboundLowWatermark: 256)

    private static func bridge() -> StreamBridge {
        StreamBridge(limits: limits) { _ in }
    }

    /// Drains what the task queued, as nghttp2's data provider does.
    private static func drain(_ bridge: StreamBridge) -> Int {
        var total = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let (count, _) = bridge.readOutbound(into: buffer)
            if count == 0 { return total }
            total += count
        }
    }

    @Test("a write whose bytes all left before the peer ended the call succeeds")
    func sentThenClosed() async throws {
        let bridge = Self.bridge()
        // A large write: it waits for room once appended. The loop sends every byte and the peer answers
        // and closes (a server may answer once it has the whole request) before the task waits.
        let write = Task {
            try await bridge.write { $0.writeRepeatingByte(7, count: 4096) }
        }
        // Whatever the order of the task and these two steps, every byte has left when the call ends.
        while Self.drain(bridge) == 0 { await Task.yield() }
        _ = Self.drain(bridge)
        bridge.failOutbound(RPCError(code: .cancelled, message: "call finished"))
        try await write.value
        // A later write has nowhere to go.
        await #expect(throws: RPCError.self) {
            try await bridge.write { $0.writeInteger(UInt8(1)) }
        }
    }

    @Test("a write with bytes still queued when the call ends fails")
    func unsentThenClosed() async throws {
        let bridge = Self.bridge()
        let write = Task {
            try await bridge.write { $0.writeRepeatingByte(7, count: 4096) }
        }
        // Let the write append (the loop takes nothing) before the call ends.
        while bridge.takeOutboundRequest().bufferedBytes == 0 { await Task.yield() }
        bridge.failOutbound(RPCError(code: .cancelled, message: "call finished"))
        await #expect(throws: RPCError.self) { try await write.value }
    }
}
