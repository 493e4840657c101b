import Foundation
@testable import HearthLoad
import Testing

/// The load tool's child processes: a waiting `line(timeout:)` is woken by the output, not by polling.
@Suite(.timeLimit(.minutes(1))) struct ChildProcessTests {
    @Test("line(timeout:) returns the lines it accepts as they come, then nil once the output ends")
    func linesThenEnd() async throws {
        let child = try ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "echo skip; sleep 0.2; echo READY 1; echo READY 2"])
        // Skipped, then woken by a line that arrives while it waits.
        #expect(await child.line(timeout: .seconds(20), where: { $0.hasPrefix("READY") }) == "READY 1")
        #expect(await child.line(timeout: .seconds(20)) == "READY 2")
        #expect(await child.line(timeout: .seconds(20)) == nil)  // ended
    }

    @Test("line(timeout:) gives up at its deadline when the child says nothing")
    func timesOut() async throws {
        let child = try ChildProcess(URL(fileURLWithPath: "/bin/sleep"), ["5"])
        defer { kill(child.pid, SIGKILL) }
        let start = ContinuousClock.now
        #expect(await child.line(timeout: .milliseconds(200)) == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(200))
    }

    @Test("a waiting task is woken by a line, by cancellation, and by the end")
    func bufferWakes() async throws {
        let lines = LineBuffer()
        // Each wake-up is sent once the task is registered as waiting, so that the path taken is the
        // resume, not the look before waiting.
        func registered() async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while !lines.hasWaiter, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            #expect(lines.hasWaiter)
        }
        let byLine = Task { await lines.waitForMore() }
        try await registered()
        lines.append("a")
        await byLine.value
        guard case .line("a") = lines.take() else { Issue.record("the line is not there"); return }
        let byCancel = Task { await lines.waitForMore() }
        try await registered()
        byCancel.cancel()
        await byCancel.value
        #expect(!lines.hasWaiter)
        let byEnd = Task { await lines.waitForMore() }
        try await registered()
        lines.end()
        await byEnd.value
        guard case .ended = lines.take() else { Issue.record("the end is not seen"); return }
    }

    @Test("a cancelled caller of line(timeout:) gets nil at once")
    func cancelledCaller() async throws {
        let child = try ChildProcess(URL(fileURLWithPath: "/bin/sleep"), ["5"])
        defer { kill(child.pid, SIGKILL) }
        let waiting = Task { await child.line(timeout: .seconds(60)) }
        waiting.cancel()
        #expect(await waiting.value == nil)
    }
}
