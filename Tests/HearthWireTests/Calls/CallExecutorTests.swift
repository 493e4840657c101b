import HearthTesting
import HearthWire
import NIOPosix
import SwiftProtobuf
import Testing

/// A client call's event-loop executor and timer: what a writer that batches (HearthDriverKit's) runs on.
@Suite("A call's executor and loop timer")
struct CallExecutorTests {
    @Test("a task on the call's executor writes and sleeps on the loop's timer; replies come back in order")
    func writerOnTheLoop() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            try await client.bidirectional(Echo.update) { call in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask(executorPreference: call.executor) {
                        for i in 0..<20 {
                            let start = ContinuousClock.now
                            try await call.sleep(for: .milliseconds(2))
                            #expect(ContinuousClock.now - start >= .milliseconds(2))
                            try await call.requests.write(contentsOf: [.with { $0.text = "a\(i)" }, .with { $0.text = "b\(i)" }])
                        }
                        call.finishRequests()
                    }
                    var texts: [String] = []
                    for try await response in call.responses { texts.append(response.text) }
                    #expect(texts == (0..<20).flatMap { ["a\($0)", "b\($0)"] })
                    try await group.waitForAll()
                }
            }
        }
    }

    @Test("cancelling a task asleep on the loop's timer ends the sleep with CancellationError at once")
    func cancelledSleep() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            try await client.bidirectional(Echo.update) { call in
                let sleeper = Task(executorPreference: call.executor) {
                    try await call.sleep(for: .seconds(60))
                }
                try await Task.sleep(for: .milliseconds(20))
                sleeper.cancel()
                await #expect(throws: CancellationError.self) { try await sleeper.value }
                // Already cancelled before it sleeps: it does not sleep at all.
                let early = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    try await call.sleep(for: .seconds(60))
                }
                await #expect(throws: CancellationError.self) { try await early.value }
                call.finishRequests()
                for try await _ in call.responses {}
            }
        }
    }

    @Test("a server-streaming reader on the call's executor takes every response on the connection's event loop")
    func readerOnTheLoop() async throws {
        try await withWireServer(services: [EchoService()]) { _, client in
            let request = Hearth_Echo_V1_ExpandRequest.with { $0.count = 500; $0.payloadSize = 8 }
            let (count, offLoop) = try await client.serverStreamingCall(Echo.expand, request: request) { call in
                var iterator = call.responses.makeAsyncIterator()
                return try await withTaskExecutorPreference(call.executor) {
                    var count = 0
                    var offLoop = 0
                    while try await iterator.next() != nil {
                        count += 1
                        if MultiThreadedEventLoopGroup.currentEventLoop == nil { offLoop += 1 }
                        while try iterator.nextIfArrived() != nil { count += 1 }
                    }
                    return (count, offLoop)
                }
            }
            #expect(count == 500)
            #expect(offLoop == 0)
        }
    }
}
