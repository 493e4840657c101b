import Foundation
import HearthTesting
import HearthWire
import SwiftProtobuf
import Testing

@Suite("Back-pressure")
struct BackpressureTests {
    @Test("a server writer suspends while its client does not read")
    func slowReader() async throws {
        let probe = ProbeService()
        try await withWireServer(services: [probe]) { _, client in
            // 1 KiB messages; the client takes the first, then stops reading.
            try await client.serverStreaming(ProbeService.flood, request: .with { $0.delayMs = 1024 }) { responses in
                var iterator = responses.makeAsyncIterator()
                _ = try await iterator.next()
                // Let the writer run into its limits (bounded wait, not a timing assertion).
                var previous = -1
                for _ in 0..<50 {
                    try await Task.sleep(for: .milliseconds(20))
                    let now = probe.written.load(ordering: .relaxed)
                    if now == previous { break }
                    previous = now
                }
                // Windows (1 MiB stream) + both buffers + socket buffers hold a few
                // thousand 1 KiB messages; a writer without back-pressure would
                // have queued all 1,000,000.
                let written = probe.written.load(ordering: .relaxed)
                #expect(written < 20_000, "writer queued \(written) messages for a reader that stopped")
                return ()
            }
        }
    }

    @Test("a client writer suspends while the handler does not read")
    func slowHandler() async throws {
        let probe = ProbeService()
        let sent = SentCounter()
        try await withWireServer(services: [probe]) { _, client in
            await #expect(throws: RPCError.self) {
                _ = try await client.clientStreaming(ProbeService.sink, options: CallOptions(timeout: .milliseconds(1500))) { writer in
                    let payload = Data(count: 1024)
                    for _ in 0..<1_000_000 {
                        try await writer.write(.with { $0.payload = payload })
                        sent.increment()
                    }
                }
            }
            #expect(sent.value < 20_000, "client queued \(sent.value) messages for a handler that reads nothing")
        }
    }
}

final class SentCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

import Synchronization
