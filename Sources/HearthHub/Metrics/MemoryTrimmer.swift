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
/// free (`mallinfo2`) and asks glibc to return free pages (`malloc_trim(0)`) when there is something new to
/// give back (``Policy``). A trim walks every arena and unmaps what it finds, and the pages are faulted in
/// again when reused, so it must not run where nothing was freed.
struct MemoryTrimmer: Sendable {
    var interval: Duration = .seconds(1)
    var freeThreshold = 32 * 1024 * 1024

    /// When to trim, apart from the clock and the C library.
    ///
    /// A trim does not lower what `mallinfo2` counts free (the pages are given back, the blocks stay in the
    /// free lists), and a busy hub keeps tens of MB free in its per-thread arenas in steady state. "More than
    /// `freeThreshold` free" was therefore true at every look under load: the hub trimmed each second, about
    /// 300 `madvise` calls and 20 ms of a thread, to give back pages it faulted in again at once. A trim is
    /// due when connections closed since the last look, or when the free bytes rose more than
    /// `freeThreshold` above the least they were since the last trim: that much was freed since.
    struct Policy: Sendable {
        let freeThreshold: Int
        var closedSeen: Int
        /// The least the arenas held free since the last trim (or the start).
        var lowWater: Int

        init(freeThreshold: Int, freeBytes: Int, connectionsClosed: Int) {
            self.freeThreshold = freeThreshold
            closedSeen = connectionsClosed
            lowWater = freeBytes
        }

        /// One look: whether to trim now.
        mutating func look(freeBytes: Int, connectionsClosed: Int) -> Bool {
            lowWater = min(lowWater, freeBytes)
            let closed = connectionsClosed != closedSeen
            closedSeen = connectionsClosed
            guard closed || freeBytes - lowWater > freeThreshold else { return false }
            lowWater = freeBytes
            return true
        }
    }

    /// Trims after closes or bursts until cancelled.
    func run(server: WireServer) async {
        var policy = Policy(
            freeThreshold: freeThreshold, freeBytes: Self.freeBytes,
            connectionsClosed: server.statistics.connectionsClosed)
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            if policy.look(freeBytes: Self.freeBytes, connectionsClosed: server.statistics.connectionsClosed) {
                Self.trim()
            }
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
