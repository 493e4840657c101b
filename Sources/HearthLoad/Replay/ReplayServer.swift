import Foundation
import HearthProto
import HearthWire
import NIOCore
import Synchronization

/// Serves a ``ReplayStream`` as `hearth.v1.HomeService/Watch`, and nothing else: each watch gets the
/// snapshot at once and the changes after ``go()``, as fast as the connection takes them; the stream then
/// stays open until the client goes. The process that runs it is the only "hub" of `hearth-load sdk-bench`,
/// so the client's CPU is the library's alone.
public final class ReplayServer: Sendable {
    let stream: ReplayStream
    private let started = Mutex<(go: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init(stream: ReplayStream) { self.stream = stream }

    /// Lets every watch (present and future) send its changes.
    public func go() {
        let waiters = started.withLock { s in
            s.go = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func waitForGo() async {
        await withCheckedContinuation { continuation in
            let now = started.withLock { s -> Bool in
                if s.go { return true }
                s.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Listens on 127.0.0.1 (port 0), prints `LISTENING <port> <final revision> <changes>`, and runs until
    /// cancelled.
    public func run() async throws {
        let server = WireServer(listeningOn: [.tcp(host: "127.0.0.1", port: 0)], services: [Service(replay: self)])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let addresses = try await server.listeningAddresses()
            FileHandle.standardOutput.write(
                Data("LISTENING \(addresses.first?.port ?? 0) \(stream.finalRevision) \(stream.changeCount)\n".utf8))
            try await group.next()
        }
    }

    struct Service: WireService {
        let replay: ReplayServer

        func register(into router: inout ServiceRouter) {
            router.registerServerStreaming(HomeMethods.watchPreEncoded) { _, writer, _ in
                for response in replay.stream.snapshot { try await writer.write(response) }
                await replay.waitForGo()
                for response in replay.stream.changes { try await writer.write(response) }
                while !Task.isCancelled { try await Task.sleep(for: .seconds(1)) }
            }
        }
    }
}
