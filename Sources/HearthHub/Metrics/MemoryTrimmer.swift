#if canImport(Glibc)
import CMalloc
#endif
import HearthWire

/// Gives memory that connections freed back to the system.
///
/// glibc keeps freed blocks in its arenas: after a burst of connections (a reconnect storm, a flood that
/// was cut off) the hub's RSS stays at its peak although nothing is alive any more, and an operator sees
/// a hub that "leaks". Every `interval`, if connections closed since the last look, this asks glibc to
/// return free pages at the top and inside its arenas (`malloc_trim(0)`), which costs a walk over the
/// arenas, so it runs at most once per interval and only after closes. Elsewhere it does nothing.
struct MemoryTrimmer: Sendable {
    var interval: Duration = .seconds(1)

    /// Trims after closes until cancelled.
    func run(server: WireServer) async {
        var seen = server.statistics.connectionsClosed
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            let closed = server.statistics.connectionsClosed
            guard closed != seen else { continue }
            seen = closed
            Self.trim()
        }
    }

    /// Returns free memory to the system now, where the C library can.
    static func trim() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
