import HearthProto
import SwiftProtobuf
import Testing

@testable import HearthHub

/// The command table alone, without sockets: each call ends once — answered, past its deadline, cancelled
/// or disconnected — and leaves nothing waiting.
@Suite("DriverSessions: a command ends once and leaves nothing behind")
struct DriverSessionsTests {
    /// A session for "lights" and the first message sent down it.
    private static func session(_ sessions: DriverSessions) -> (serial: Int, sent: AsyncStream<Hearth_V1_HubMessage>) {
        let (serial, outbound) = sessions.open(driver: "lights")
        return (serial, outbound)
    }

    private static func command(_ correlation: UInt64) -> Hearth_V1_HubMessage {
        .with { $0.command = .with { $0.correlationID = correlation; $0.deviceID = "lamp" } }
    }

    @Test("the driver's answer resumes the caller; a second answer with the same id is unknown")
    func answered() async throws {
        let sessions = DriverSessions()
        let (_, sent) = Self.session(sessions)
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
        let (_, sent) = Self.session(sessions)
        for timeout: Duration in [.milliseconds(50), .zero] {
            await #expect(throws: HubError.self) {
                do {
                    _ = try await sessions.call(driver: "lights", timeout: timeout) { Self.command($0) }
                } catch let error as HubError {
                    #expect(error.code == .deadlineExceeded)
                    throw error
                }
            }
        }
        #expect(sessions.inFlight == 0)
        _ = sent
    }

    @Test("a cancelled caller ends CANCELLED, before or after its command was sent, and its answer is then unknown")
    func cancelled() async throws {
        let sessions = DriverSessions()
        let (_, sent) = Self.session(sessions)
        var messages = sent.makeAsyncIterator()
        // Cancelled while waiting for the answer.
        let waiting = Task { try await sessions.call(driver: "lights", timeout: .seconds(60)) { Self.command($0) } }
        let command = try #require(await messages.next()).command
        waiting.cancel()
        await #expect(throws: HubError.self) { _ = try await waiting.value }
        #expect(!sessions.complete(driver: "lights", .with { $0.correlationID = command.correlationID }))
        // Cancelled before it started: refused at registration, nothing is sent.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await sessions.call(driver: "lights", timeout: .seconds(60)) { Self.command($0) }
        }
        do {
            _ = try await early.value
            Issue.record("expected CANCELLED")
        } catch let error as HubError {
            #expect(error.code == .cancelled)
        }
        #expect(sessions.inFlight == 0)
    }

    @Test("a driver that disconnects or is replaced fails its commands UNAVAILABLE at once")
    func disconnected() async throws {
        let sessions = DriverSessions()
        let (serial, sent) = Self.session(sessions)
        var messages = sent.makeAsyncIterator()
        let first = Task { try await sessions.call(driver: "lights", timeout: .seconds(60)) { Self.command($0) } }
        _ = await messages.next()
        let (_, newer) = Self.session(sessions)  // replaces the first session
        #expect(!sessions.close(driver: "lights", serial: serial))
        var newerMessages = newer.makeAsyncIterator()
        let second = Task { try await sessions.call(driver: "lights", timeout: .seconds(60)) { Self.command($0) } }
        _ = await newerMessages.next()
        #expect(sessions.close(driver: "lights", serial: serial + 1))
        for call in [first, second] {
            do {
                _ = try await call.value
                Issue.record("expected UNAVAILABLE")
            } catch let error as HubError {
                #expect(error.code == .unavailable)
            }
        }
        await #expect(throws: HubError.self) {
            _ = try await sessions.call(driver: "lights", timeout: .seconds(60)) { Self.command($0) }
        }
        #expect(sessions.inFlight == 0)
    }
}
