import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Figures about this process: resident memory from `/proc/self/status`, and a clock that other processes
/// on the machine share.
enum ProcessProbe {
    /// `VmRSS` and `VmHWM` (peak) in bytes; 0 where `/proc` is missing (not Linux).
    static func memory() -> (rss: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        var rss = 0
        var peak = 0
        for line in status.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kib = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { rss = kib * 1024 }
            if fields[0] == "VmHWM:" { peak = kib * 1024 }
        }
        return (rss, peak)
    }

    /// Resident bytes after glibc has handed freed heap back to the system (`malloc_trim(0)`), so that a
    /// reading counts what is live rather than what a burst of temporary allocations left behind.
    static func trimmedRSS() -> Int {
        _ = mallocTrim?(0)
        return memory().rss
    }

    /// glibc's `malloc_trim`, looked up at run time: Swift's Glibc module does not import `<malloc.h>`.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// `CLOCK_MONOTONIC` in nanoseconds: the same clock in every process, so a parent can pass the moment it
    /// started a child and the child can say how long it took to get ready.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
