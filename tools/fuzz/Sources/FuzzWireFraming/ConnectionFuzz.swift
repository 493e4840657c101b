import FuzzSupport
import HearthWire
import NIOCore
import WireHarness

/// A real server connection (``EmbeddedConnection``: the server's connection handler over nghttp2 on an
/// `EmbeddedChannel`, the echo service behind it) fed the fuzzer's bytes as what its peer sent.
///
/// Everything happens on the fuzzer's thread, in an order fixed by the input: no sleeping, no sockets. Time
/// moves only when the input says so (to reach deadlines and the first-message timeout).
///
/// Input: the selector byte, a time byte, then the peer's bytes. ``ConnectionInput`` lays the two bytes out:
/// read sizes, small limits (so that message, header and budget limits are hit by small inputs), the client
/// preface, how far time moves at the end and whether the server then shuts down gracefully.
///
/// Checked after every input: the connection closes, every call it started finishes, and the server-wide
/// budgets return to zero (no nghttp2 session, partial-message byte or queued byte is left behind).
enum ConnectionFuzz {
    static func run(selector: UInt8, _ input: inout FuzzInput) {
        let smallLimits = selector & 0x10 != 0
        let readSizes = ConnectionInput.readSizes
        var readSize = readSizes[Int(selector >> 5)]
        let advance = input.byte()
        var bytes = selector & 0x08 != 0 ? ConnectionInput.preface : []
        bytes += input.rest()

        let connection = EmbeddedConnection(configuration: configuration(small: smallLimits))
        var offset = 0
        while offset < bytes.count, connection.isActive {
            // Size 0: each read's length is the byte before it.
            if readSizes[Int(selector >> 5)] == 0 {
                readSize = max(1, Int(bytes[offset]))
                offset += 1
            }
            let end = min(bytes.count, offset + min(readSize, bytes.count - offset))
            connection.receive(bytes[offset..<end])
            offset = end
        }
        // Time passes (1/4: none), for deadlines, the first-message timeout and the shutdown grace.
        switch advance & 0x03 {
        case 1: connection.advance(by: .seconds(1))
        case 2: connection.advance(by: .seconds(31))
        case 3: connection.advance(by: .minutes(10))
        default: break
        }
        if advance & 0x04 != 0, connection.isActive { connection.beginGracefulShutdown() }
        connection.closeAndCheck()
    }

    static func configuration(small: Bool) -> WireServer.Configuration {
        var configuration = WireServer.Configuration()
        configuration.handlerExecution = .eventLoop
        if small {
            configuration.maxRunningHandlers = 2
            configuration.connection.limits.maxReceiveMessageSize = 64
            configuration.connection.limits.maxHeaderListSize = 256
            configuration.connection.limits.maxConcurrentStreams = 4
            configuration.connection.flowControl.initialStreamWindow = 128
            configuration.connection.flowControl.inboundHighWatermark = 64
            configuration.connection.flowControl.outboundHighWatermark = 64
            configuration.connection.budgets.partialMessageBytesPerConnection = 96
            configuration.connection.budgets.partialMessageBytesPerServer = 128
            configuration.connection.budgets.queuedOutboundBytesPerConnection = 128
            configuration.connection.budgets.queuedOutboundBytesPerServer = 96
            configuration.connection.floodProtection.maxContinuations = 2
            configuration.connection.floodProtection.streamResetBurst = 4
            configuration.connection.floodProtection.streamResetRate = 1
            configuration.connection.keepalive = .init(interval: .seconds(5), timeout: .seconds(2))
        }
        return configuration
    }
}

