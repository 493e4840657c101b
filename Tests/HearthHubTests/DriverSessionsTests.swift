import HearthProto
import SwiftProtobuf
import Testing

@testable import HearthHub

/// The command table alone, without sockets: each call ends once — answered, past its deadline, cancelled
/// or disconnected — and leaves nothing waiting.
@Suite("DriverSessions: a command ends once and leaves nothing behind")
struct DriverSessionsTests {
    private static func command(_ correlation: UInt64) -> Hearth_V1_HubMessage {
        .with { $0.command = .with { $0.correlationID = correlation; $0.deviceID = "lamp" } }
    }

    /// A command to "lights" with a deadline far beyond the test, running in a task of its own.
    private static func waitingCall(_ sessions: DriverSessions) -> Task<Hearth_V1_CommandResult, any Error> {
        Task { try await sessions.call(driver: "lights", timeout: .seconds(60)) { Self.command($0) } }
    }

    /// Expects `body` to fail with a ``HubError`` of `code`.
    private static func expect(
        _ code: HubError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Any
    ) async {
        do {
            _ = try await body()
            Issue.record("expected \(code), the call succeeded", sourceLocation: sourceLocation)
        } catch let error as HubError {
            #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected HubError \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("the driver's answer resumes the caller; a second answer with the same id is unknown")
    func answered() async throws {
        let sessions = DriverSessions()
        let (_, sent) = sessions.open(driver: "lights")
        async let result = sessions.call(driver: "lights", timeout: .seconds(60)) { Self.command($0) }
        var messages = sent.makeAsyncIterator()
        let command = try #require(await messages.next()).command
        #expect(sessions.complete(driver: "lights", .with { $0.correlationID = command.correlationID; $0.errorCode = 0 }))
        #expect(try await result.correlationID == command.correlationID)
        #expect(!sessions.complete(driver: "lights", .with { $0.correlationID = command.correlationID }))
        #expect(sessions.inFlight == 0)
    }

    @Test("a deadline ends the call DEADLINE_EXCEEDED, also one already past when the call starts")
    func deadlines() async throws {
        let sessions = DriverSessions()
        let (_, sent) = sessions.open(driver: "lights")
        for timeout: Duration in [.milliseconds(50), .zero] {
            await Self.expect(.deadlineExceeded) {
                try await sessions.call(driver: "lights", timeout: timeout) { Self.command($0) }
            }
        }
        #expect(sessions.inFlight == 0)
        _ = sent
    }

    @Test("a cancelled caller ends CANCELLED, before or after its command was sent, and its answer is then unknown")
    func cancelled() async throws {
        let sessions = DriverSessions()
        let (_, sent) = sessions.open(driver: "lights")
        var messages = sent.makeAsyncIterator()
        // Cancelled while waiting for the answer.
        let waiting = Self.waitingCall(sessions)
        let command = try #require(await messages.next()).command
        waiting.cancel()
        await Self.expect(.cancelled) { try await waiting.value }
        #expect(!sessions.complete(driver: "lights", .with { $0.correlationID = command.correlationID }))
        // Cancelled before it started: refused at registration, so nothing waits for an answer.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await sessions.call(driver: "lights", timeout: .seconds(60)) { Self.command($0) }
        }
        await Self.expect(.cancelled) { try await early.value }
        #expect(sessions.inFlight == 0)
    }

    @Test("a driver that disconnects or is replaced fails its commands UNAVAILABLE at once")
    func disconnected() async throws {
        let sessions = DriverSessions()
        let (serial, sent) = sessions.open(driver: "lights")
        var messages = sent.makeAsyncIterator()
        let first = Self.waitingCall(sessions)
        _ = await messages.next()
        let (_, newer) = sessions.open(driver: "lights")  // replaces the first session
        #expect(!sessions.close(driver: "lights", serial: serial))
        var newerMessages = newer.makeAsyncIterator()
        let second = Self.waitingCall(sessions)
        _ = await newerMessages.next()
        #expect(sessions.close(driver: "lights", serial: serial + 1))
        for call in [first, second] {
            await Self.expect(.unavailable) { try await call.value }
        }
        await Self.expect(.unavailable) {
            try await sessions.call(driver: "lights", timeout: .seconds(60)) { Self.command($0) }
        }
        #expect(sessions.inFlight == 0)
    }
}
