import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The event loops a hub's connections run on.
///
/// One loop per CPU the process may run on: not per CPU the machine has. A hub pinned to one CPU (taskset,
/// systemd's `CPUAffinity=`, a cpuset) with two loops would pass every report from the driver's loop to the
/// watcher's loop through an eventfd and a context switch on that same CPU, for nothing: measured on the
/// fan-out benchmark, that hop was most of the hub's cost per change at low rates (`Docs/Hub.md`, "Event
/// loops"). Groups are shared per size and live as long as the process, like NIO's singleton.
enum EventLoops {
    private static let groups = Mutex<[Int: MultiThreadedEventLoopGroup]>([:])

    /// The shared group of `threads` loops (NIO's singleton when that is its size).
    static func group(threads: Int) -> MultiThreadedEventLoopGroup {
        let threads = max(1, threads)
        if threads == System.coreCount { return .singleton }
        return groups.withLock { groups in
            if let group = groups[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            groups[threads] = group
            return group
        }
    }

    /// How many CPUs this process may run on: its affinity mask (`Cpus_allowed_list` in
    /// `/proc/self/status`), at most NIO's core count (which knows cgroup quotas); NIO's count when the mask
    /// cannot be read.
    static var allowedCPUs: Int {
        let cores = System.coreCount
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }),
            let count = cpuCount(list: line.dropFirst("Cpus_allowed_list:".count))
        else { return cores }
        return max(1, min(count, cores))
    }

    /// The number of CPUs in a Linux CPU list such as `0-3,6,8-9`; nil when it is not one.
    static func cpuCount(list: Substring) -> Int? {
        var count = 0
        for part in list.split(separator: ",") {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
            switch bounds.count {
            case 1:
                guard bounds[0] != nil else { return nil }
                count += 1
            case 2:
                guard let low = bounds[0], let high = bounds[1], high >= low else { return nil }
                count += high - low + 1
            default:
                return nil
            }
        }
        return count > 0 ? count : nil
    }
}
