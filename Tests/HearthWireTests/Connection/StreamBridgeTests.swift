import Foundation
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

    /// Takes everything the task queued, as nghttp2's data provider does.
    @discardableResult
    private static func drain(_ bridge: StreamBridge) -> Int {
        var total = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8192, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let (count, _) = bridge.readOutbound(into: buffer)
            if count == 0 { return total }
            total += count
        }
    }

    /// A write large enough to wait for room, racing a loop that sends every byte and then sees the peer end
    /// the call (a server may answer once it has the whole request) as soon as the bytes are there. Either
    /// order is legitimate and the write must succeed in both; the race is run many times so that the order
    /// where the call ends before the task starts waiting comes up (it failed the write before the fix).
    ///
    /// The loop thread gives its core away while it polls, and the task awaits the thread's end rather than
    /// polling for it: in a parallel run on two cores a bare spin on both sides held the machine for 30 s
    /// and starved other suites' hubs past their 20 s deadlines.
    @Test("a write whose bytes all left before the peer ended the call succeeds, whichever side runs first")
    func sentThenClosed() async throws {
        var failures = 0
        for _ in 0..<10_000 {
            let bridge = Self.bridge()
            let (finished, finish) = AsyncStream<Void>.makeStream()
            let loop = Thread {
                while bridge.takeOutboundRequest().bufferedBytes == 0 { sched_yield() }
                Self.drain(bridge)
                bridge.failOutbound(RPCError(code: .cancelled, message: "call finished"))
                finish.finish()
            }
            loop.start()
            do {
                try await bridge.write { $0.writeRepeatingByte(7, count: 4096) }
            } catch {
                failures += 1
            }
            for await _ in finished {}
            // A later write has nowhere to go.
            await #expect(throws: RPCError.self) {
                try await bridge.write { $0.writeInteger(UInt8(1)) }
            }
        }
        #expect(failures == 0)
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

/// Taking inbound messages without waiting, as a batching reader does.
@Suite("StreamBridge: messages taken without waiting")
struct StreamBridgeArrivedTests {
    @Test("only queued messages are taken, in order; the end is left for nextInbound, and held credit is released")
    func takesOnlyWhatArrived() async throws {
        let released = Mutex(0)
        let bridge = StreamBridge(
            limits: StreamBridge.Limits(inboundHighWatermark: 20, inboundLowWatermark: 10)
        ) { request in
            if case .consumed(let bytes) = request { released.withLock { $0 += bytes } }
        }
        #expect(bridge.nextInboundIfArrived() == nil)
        let messages = (1...3).map { InboundMessage(ByteBuffer(bytes: [UInt8](repeating: $0, count: 8))) }
        // 3 × (8 + 5) bytes queued is above the high watermark: the chunk's credit is held back.
        #expect(bridge.deliver(messages, chunkBytes: 39) == 0)
        #expect(bridge.nextInboundIfArrived() == messages[0])
        #expect(bridge.nextInboundIfArrived() == messages[1])
        #expect(released.withLock { $0 } == 0)  // 13 bytes still queued, not below the low watermark
        bridge.finishInbound(.success(()))
        #expect(bridge.nextInboundIfArrived() == messages[2])
        #expect(released.withLock { $0 } == 39)  // the queue is empty: the held credit goes back
        #expect(bridge.nextInboundIfArrived() == nil)
        #expect(try await bridge.nextInbound() == nil)
    }
}
