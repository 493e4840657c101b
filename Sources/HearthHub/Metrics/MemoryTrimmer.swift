#if canImport(Glibc)
import CMalloc
import Glibc
#endif
import HearthWire

/// Gives memory the hub freed back to the system.
///
/// glibc keeps freed blocks in its arenas: after a burst (a reconnect storm, a flood that was cut off, a
/// hundred thousand devices announced, a snapshot of them all sent to a watcher) the hub's RSS stays at its
/// peak although nothing is alive any more, and an operator sees a hub that "leaks" (100k devices: 252 MB
/// after the announcements, 148 MB after a trim). Every `interval` this reads the process's resident size
/// and asks glibc to return free pages (`malloc_trim(0)`) when connections closed or a burst is over
/// (``Policy``). A trim walks every arena and unmaps what it finds, and the pages are faulted in again when
/// reused, so it must not run where nothing was freed.
///
/// The resident size is read from `/proc/self/statm`. The trimmer used to ask `mallinfo2` how much the
/// arenas held free, at every look: that walks every free chunk of every arena holding the arena's lock,
/// 1–5 ms once a second with 10,000 devices (11 ms with 100,000), during which every allocation of a thread
/// using that arena waited.
struct MemoryTrimmer: Sendable {
    var interval: Duration = .seconds(1)
    var growthThreshold = 32 * 1024 * 1024

    /// When to trim, apart from the clock and the C library.
    ///
    /// A burst grows the process; when it is over, what it allocated for itself is free but still resident.
    /// A trim is due when connections closed since the last look, or when the process is more than
    /// `growthThreshold` above where it was at the last trim (or the start) and did not grow since the
    /// previous look: a burst is over. The mark is where the process stood *before* the trim, so the pages
    /// a trim gives back and a steady load faults in again never count as growth (measured from the low a
    /// trim leaves, they did, and a steady hub trimmed every few seconds, as it did when an earlier rule
    /// looked at the arenas' free bytes: one trim each second, 300 `madvise` calls and 20 ms of a thread).
    /// A later burst that stays under that mark is not trimmed: the process never goes past its peak by
    /// more than the threshold without a trim.
    struct Policy: Sendable {
        let growthThreshold: Int
        var closedSeen: Int
        /// Resident before the last trim (or at the first look that could read it).
        var mark: Int?
        /// Resident at the previous look.
        var previous: Int

        init(growthThreshold: Int, residentBytes: Int?, connectionsClosed: Int) {
            self.growthThreshold = growthThreshold
            closedSeen = connectionsClosed
            mark = residentBytes
            previous = residentBytes ?? 0
        }

        /// One look: whether to trim now. Without the resident size (it could not be read) only closes count.
        mutating func look(residentBytes: Int?, connectionsClosed: Int) -> Bool {
            let closed = connectionsClosed != closedSeen
            closedSeen = connectionsClosed
            guard let resident = residentBytes else { return closed }
            defer { previous = resident }
            // The first reading is where the process stands, not growth from nothing.
            guard let mark else {
                self.mark = resident
                return closed
            }
            let burstOver = resident - mark > growthThreshold && resident <= previous
            guard closed || burstOver else { return false }
            self.mark = max(mark, resident)
            return true
        }
    }

    /// Trims after closes or bursts until cancelled.
    func run(server: WireServer) async {
        var policy = Policy(
            growthThreshold: growthThreshold, residentBytes: Self.residentBytes,
            connectionsClosed: server.statistics.connectionsClosed)
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            if policy.look(residentBytes: Self.residentBytes, connectionsClosed: server.statistics.connectionsClosed) {
                Self.trim()
            }
        }
    }

    /// The process's resident bytes now (`/proc/self/statm`); nil where it cannot be read.
    static var residentBytes: Int? {
        #if canImport(Glibc)
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // "size resident shared text lib data dt", in pages.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer -> Int? in
            let count = read(fd, buffer.baseAddress, buffer.count)
            guard count > 0 else { return nil }
            let fields = buffer[..<count].split(separator: UInt8(ascii: " "), maxSplits: 2)
            guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }
        #else
        return nil
        #endif
    }

    /// Returns free memory to the system now, where the C library can.
    static func trim() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
