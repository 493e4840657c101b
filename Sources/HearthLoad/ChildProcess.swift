import DequeModule
public import Foundation
import Synchronization

/// A child process with a pipe to its standard input and its standard output read line by line.
public final class ChildProcess: Sendable {
    /// Started here, then only read (pid, state) or signalled.
    let process: Process
    let input: FileHandle
    let lines = LineBuffer()

    /// Starts `executable` with `arguments`; its standard error goes to this process's.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        try process.run()
        input = stdin.fileHandleForWriting
        let reader = stdout.fileHandleForReading
        Thread.detachNewThread { [lines] in
            var pending = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lines.append(line)
                }
            }
            lines.end()
        }
    }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// Whether it still runs.
    public var isRunning: Bool { process.isRunning }

    /// The next line of its output that `accept` takes (others are skipped), or nil when the output ends
    /// or `timeout` passes first.
    ///
    /// It waits to be woken by the thread reading the output: polling every 5 ms, the orchestrator waiting
    /// for a phase's `DONE` lines woke a timer and a pool thread 200 times a second in the process that
    /// holds the clients being measured. One caller at a time; a cancelled caller gets nil.
    public func line(timeout: Duration, where accept: (String) -> Bool = { _ in true }) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !Task.isCancelled {
            switch lines.take() {
            case .line(let line): if accept(line) { return line }
            case .ended: return nil
            case .empty:
                let lines = self.lines
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await lines.waitForMore() }
                    group.addTask { try? await Task.sleep(until: deadline) }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
        return nil
    }

    /// Writes one line to its standard input.
    public func send(_ line: String) {
        try? input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes its standard input and gives it `wait` to exit by itself, then SIGTERM, then SIGKILL after
    /// `grace`; returns once it has exited.
    public func stop(wait: Duration = .zero, grace: Duration = .seconds(10)) async {
        try? input.close()
        let exitBy = ContinuousClock.now + wait
        while process.isRunning && ContinuousClock.now < exitBy { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now + grace
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
    }
}

/// The lines a child printed and not yet taken, shared with the thread that reads them, which wakes the one
/// task waiting for more.
final class LineBuffer: Sendable {
    private struct State {
        var buffer: Deque<String> = []
        var ended = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    enum Taken {
        case line(String)
        case ended
        case empty
    }

    private let state = Mutex(State())

    /// A line read (the reading thread).
    func append(_ line: String) { wake { $0.buffer.append(line) } }

    /// The output ended (the reading thread).
    func end() { wake { $0.ended = true } }

    /// Makes `change` under the lock and resumes the waiting task, if any, outside it.
    private func wake(_ change: (inout State) -> Void = { _ in }) {
        state.withLock { s -> CheckedContinuation<Void, Never>? in
            change(&s)
            defer { s.waiter = nil }
            return s.waiter
        }?.resume()
    }

    /// Whether a task waits in ``waitForMore()`` (for tests).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// The oldest line not taken, else whether the output ended.
    func take() -> Taken {
        state.withLock { s in
            if let line = s.buffer.popFirst() { return .line(line) }
            return s.ended ? .ended : .empty
        }
    }

    /// Returns once a line is there, the output has ended, or the task is cancelled. One waiter at a time.
    func waitForMore() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { s -> Bool in
                    if !s.buffer.isEmpty || s.ended || Task.isCancelled { return true }
                    precondition(s.waiter == nil, "two tasks wait for one child's output")
                    s.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
    }
}

/// CPU time and memory of a process, from `/proc` (Linux).
public struct ProcessStats: Sendable, Hashable {
    /// User plus system CPU seconds so far.
    public var cpuSeconds: Double
    /// Resident memory now, in bytes.
    public var residentBytes: UInt64
    /// The most resident memory so far (VmHWM), in bytes.
    public var peakBytes: UInt64

    /// The stats of process `pid`, or nil when `/proc` cannot tell.
    public static func of(_ pid: Int32) -> ProcessStats? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command's closing parenthesis start at field 3 (state); utime and stime are 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        func kilobytes(_ key: String) -> UInt64 {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return (words.dropFirst().first.flatMap { UInt64($0) } ?? 0) * 1024
        }
        return ProcessStats(cpuSeconds: (user + system) / ticks, residentBytes: kilobytes("VmRSS:"), peakBytes: kilobytes("VmHWM:"))
    }
}
