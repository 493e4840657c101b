import Foundation
import SwiftProtobuf
import HearthTesting
import HearthWire
import Testing

@Suite("Calls between our client and our server")
struct EchoCallTests {
    @Test("unary call returns the echoed message")
    func unary() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            let reply = try await client.unary(Echo.get, request: .with { $0.text = "hello"; $0.payload = Data([1, 2, 3]) })
            #expect(reply.text == "hello")
            #expect(reply.payload == Data([1, 2, 3]))
        }
    }

    @Test("server streaming delivers every message in order")
    func serverStreaming() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            let count = try await client.serverStreaming(Echo.expand, request: .with { $0.count = 10_000; $0.payloadSize = 8 }) { responses in
                var expected: UInt64 = 0
                for try await response in responses {
                    #expect(response.index == expected)
                    #expect(response.payload == Data(repeating: UInt8(expected % 256), count: 8))
                    expected += 1
                }
                return expected
            }
            #expect(count == 10_000)
        }
    }

    @Test("client streaming collects every request")
    func clientStreaming() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            let reply = try await client.clientStreaming(Echo.collect) { writer in
                for i in 0..<500 { try await writer.write(.with { $0.text = "m\(i)" }) }
            }
            #expect(reply.index == 500)
            #expect(reply.text.hasPrefix("m0 m1 m2"))
        }
    }

    @Test("bidirectional call answers each request")
    func bidirectional() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            try await client.bidirectional(Echo.update) { call in
                var responses = call.responses.makeAsyncIterator()
                for i in 0..<200 {
                    try await call.write(.with { $0.text = "ping \(i)" })
                    let reply = try await responses.next()
                    #expect(reply?.text == "ping \(i)")
                    #expect(reply?.index == UInt64(i))
                }
                call.finishRequests()
                #expect(try await responses.next() == nil)
            }
        }
    }
}
