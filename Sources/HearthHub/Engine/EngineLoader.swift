import HearthWire
import Synchronization

/// The engine while it loads: the hub listens at once and every call waits here until the graph is in memory.
///
/// Loading starts when the loader is made. Calls that arrive before it ends wait for it (their deadlines still
/// run); if it fails, they get UNAVAILABLE naming the error, and ``Hub/run()`` throws it.
final class EngineLoader: Sendable {
    private final class Slot: Sendable {
        let engine = Mutex<HubEngine?>(nil)
    }

    private let task: Task<HubEngine, any Error>
    private let slot = Slot()

    /// Starts `open` at once.
    init(_ open: @escaping @Sendable () async throws -> HubEngine) {
        let slot = self.slot
        task = Task {
            let engine = try await open()
            slot.engine.withLock { $0 = engine }
            return engine
        }
    }

    /// The engine once loaded, or nil while it loads (or after it failed).
    var loaded: HubEngine? { slot.engine.withLock { $0 } }

    /// The engine, waiting for it to load.
    /// - Throws: ``RPCError`` UNAVAILABLE when loading failed.
    func engine() async throws -> HubEngine {
        if let engine = loaded { return engine }
        do {
            return try await task.value
        } catch {
            throw RPCError(code: .unavailable, message: "the hub could not load its data: \(error)")
        }
    }

    /// The engine, or loading's own error (for the hub's run, which reports it as it is).
    func engineOrError() async throws -> HubEngine {
        try await task.value
    }
}
