import Foundation
import HearthTesting
import HearthWire
import Synchronization
import SwiftProtobuf

/// A service whose handlers report what happened to them, for tests of
/// deadlines, cancellation and back-pressure. Messages reuse the echo types.
final class ProbeService: WireService, Sendable {
    typealias Request = Hearth_Echo_V1_EchoRequest
    typealias Response = Hearth_Echo_V1_EchoResponse

    static let hang = MethodDescriptor<Request, Response>(service: "hearth.test.Probe", method: "Hang", kind: .unary)
    static let flood = MethodDescriptor<Request, Response>(service: "hearth.test.Probe", method: "Flood", kind: .serverStreaming)
    static let slow = MethodDescriptor<Request, Response>(service: "hearth.test.Probe", method: "Slow", kind: .unary)
    static let sink = MethodDescriptor<Request, Response>(service: "hearth.test.Probe", method: "Sink", kind: .clientStreaming)

    /// Messages the Flood handler has queued so far.
    let written = Atomic<Int>(0)
    private let events = Mutex<[String]>([])
    private let started: AsyncStream<Void>.Continuation
    /// One element each time a handler starts.
    let starts: AsyncStream<Void>

    init() {
        (starts, started) = AsyncStream.makeStream()
    }

    /// What handlers recorded ("cancelled", "deadline", "finished"…), in order.
    var recorded: [String] { events.withLock { $0 } }

    private func record(_ event: String) { events.withLock { $0.append(event) } }

    /// Whether a handler that started was stopped (waiting, bounded, for it). Under load a short deadline
    /// may pass before the handler starts; then it must never start, which also counts.
    func startedHandlersStopped() async -> Bool {
        _ = await waitFor("stopped")
        let seen = recorded
        return !seen.contains("finished") && (!seen.contains("started") || seen.contains("stopped"))
    }

    /// Waits (bounded) until `event` is recorded.
    func waitFor(_ event: String, timeout: Duration = .seconds(5)) async -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while clock.now < end {
            if recorded.contains(event) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func register(into router: inout ServiceRouter) {
        router.registerUnary(Self.hang) { [self] _, _ in
            record("started")
            started.yield()
            do {
                try await Task.sleep(for: .seconds(60))
                record("finished")
            } catch {
                record("stopped")
                throw error
            }
            return Response()
        }
        router.registerUnary(Self.slow) { [self] request, _ in
            started.yield()
            try await Task.sleep(for: .milliseconds(Int(request.delayMs)))
            return .with { $0.text = request.text }
        }
        router.registerServerStreaming(Self.flood) { [self] request, writer, _ in
            started.yield()
            let payload = Data(repeating: 7, count: Int(request.delayMs))
            do {
                for i in 0..<1_000_000 {
                    try await writer.write(.with { $0.index = UInt64(i); $0.payload = payload })
                    written.add(1, ordering: .relaxed)
                }
                record("finished")
            } catch {
                record("write failed")
                throw error
            }
        }
        router.registerClientStreaming(Self.sink) { [self] requests, _ in
            started.yield()
            // Reads nothing until cancelled: the sender must be held back.
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                record("cancelled")
                throw error
            }
            var count = 0
            for try await _ in requests { count += 1 }
            return .with { $0.index = UInt64(count) }
        }
    }
}
