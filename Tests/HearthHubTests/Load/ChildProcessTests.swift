import Foundation
@testable import HearthLoad
import Testing

/// The load tool's child processes: a waiting `line(timeout:)` is woken by the output, not by polling.
@Suite struct ChildProcessTests {
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

    @Test("a waiter is woken by a line, by the end, and by cancellation")
    func bufferWakes() async {
        let lines = LineBuffer()
        async let woken: Void = lines.waitForMore()
        lines.append("a")
        await woken
        guard case .line("a") = lines.take() else { Issue.record("the line is not there"); return }
        let waiting = Task { await lines.waitForMore() }
        waiting.cancel()
        await waiting.value  // returns: cancelled
        async let ended: Void = lines.waitForMore()
        lines.end()
        await ended
        guard case .ended = lines.take() else { Issue.record("the end is not seen"); return }
    }
}
