#if canImport(Glibc)
import CMalloc
#endif
import HearthWire

/// Gives memory the hub freed back to the system.
///
/// glibc keeps freed blocks in its arenas: after a burst (a reconnect storm, a flood that was cut off, a
/// hundred thousand devices announced, a snapshot of them all sent to a watcher) the hub's RSS stays at its
/// peak although nothing is alive any more, and an operator sees a hub that "leaks" (100k devices: 252 MB
/// after the announcements, 148 MB after a trim). Every `interval` this looks at how much the arenas hold
/// free (`mallinfo2`) and, when connections closed since the last look or more than `freeThreshold` bytes
/// lie free, asks glibc to return free pages (`malloc_trim(0)`), which costs a walk over the arenas: so it
/// runs at most once per interval and only when there is something to give back. Elsewhere it does nothing.
struct MemoryTrimmer: Sendable {
    var interval: Duration = .seconds(1)
    var freeThreshold = 32 * 1024 * 1024

    /// Trims after closes or bursts until cancelled.
    func run(server: WireServer) async {
        var seen = server.statistics.connectionsClosed
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            let closed = server.statistics.connectionsClosed
            guard closed != seen || Self.freeBytes > freeThreshold else { continue }
            seen = closed
            Self.trim()
        }
    }

    /// Bytes the arenas hold free now (0 where the C library cannot say).
    static var freeBytes: Int {
        #if canImport(Glibc)
        return Int(mallinfo2().fordblks)
        #else
        return 0
        #endif
    }

    /// Returns free memory to the system now, where the C library can.
    static func trim() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
