import NIOCore
import NIOEmbedded
import Testing

@testable import HearthWire

/// What a finished connect hands to calls (`WireClient.connection(on:target:)`), in each order the
/// connection's close and the connect's callback can come: no socket, so every order is forced.
@Suite("The connection a finished connect hands to calls")
struct ConnectionTakenTests {
    private static let target = WireClient.Target.tcp(host: "127.0.0.1", port: 1)

    private static func connectedChannel() throws -> (EmbeddedChannel, ClientConnectionHandler) {
        let handler = ClientConnectionHandler(configuration: ConnectionConfiguration(), authority: "localhost", onUnusable: {})
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.embeddedEventLoop.run()
        return (channel, handler)
    }

    @Test("a live connection is handed out with its own handler")
    func live() throws {
        let (channel, handler) = try Self.connectedChannel()
        defer { _ = try? channel.finish() }
        let connection = try WireClient.connection(on: channel, target: Self.target).get()
        #expect(connection.handler.value === handler)
        #expect(connection.id == ObjectIdentifier(channel))
    }

    @Test("a connection that stopped taking calls (closed or GOAWAY) fails UNAVAILABLE with its reason")
    func unusable() throws {
        let (channel, handler) = try Self.connectedChannel()
        defer { _ = try? channel.finish() }
        handler.markUnusable()
        let result = WireClient.connection(on: channel, target: Self.target)
        guard case .failure(let error) = result else {
            Issue.record("an unusable connection was handed out")
            return
        }
        #expect(error.code == .unavailable, "\(error)")
        #expect(error.message.contains("connection closed"), "\(error)")
    }

    @Test("a connection whose handlers were already removed fails UNAVAILABLE instead of trapping")
    func torndown() throws {
        let channel = EmbeddedChannel()  // as after the close: no connection handler in the pipeline
        defer { _ = try? channel.finish() }
        let result = WireClient.connection(on: channel, target: Self.target)
        guard case .failure(let error) = result else {
            Issue.record("a connection without a handler was handed out")
            return
        }
        #expect(error.code == .unavailable, "\(error)")
        #expect(error.message == "could not connect to 127.0.0.1:1: connection closed", "\(error)")
    }
}
