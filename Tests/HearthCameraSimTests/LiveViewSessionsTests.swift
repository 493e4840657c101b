import HearthCameraSim
import Testing

@Suite("Live-view sessions: start, extend, expire, talkback (time moved by hand)")
struct LiveViewSessionsTests {
    let t0 = ContinuousClock.now

    func sessions(limit: Int = 4, talkback: Bool = true) -> LiveViewSessions {
        LiveViewSessions(duration: .seconds(30), limit: limit, supportsTalkback: talkback)
    }

    @Test("a session lives for its duration; extending moves the end; the clock removes it after")
    func lifetime() throws {
        var sessions = sessions()
        let started = try sessions.start(id: "a", receivesAudio: true, now: t0)
        #expect(started.expires == t0 + .seconds(30))
        #expect(sessions.expire(now: t0 + .seconds(29)).isEmpty)
        let extended = try sessions.extend("a", now: t0 + .seconds(20))
        #expect(extended.expires == t0 + .seconds(50))
        #expect(sessions.expire(now: t0 + .seconds(45)).isEmpty)
        #expect(sessions.live(at: t0 + .seconds(45)).map(\.id) == ["a"])
        #expect(sessions.expire(now: t0 + .seconds(50)).map(\.id) == ["a"])
        #expect(sessions.count == 0)
    }

    @Test("an expired session is gone for every command even before the clock removes it")
    func expiredIsNotFound() throws {
        var sessions = sessions()
        _ = try sessions.start(id: "a", receivesAudio: true, now: t0)
        let late = t0 + .seconds(31)
        #expect(sessions.count == 1, "not removed yet")
        var copy = sessions
        #expect(try #require(throws: CameraError.self) { try copy.extend("a", now: late) }.code == .notFound)
        #expect(try #require(throws: CameraError.self) { try copy.startTalkback("a", now: late) }.code == .notFound)
        #expect(try #require(throws: CameraError.self) { try copy.stopTalkback("a", now: late) }.code == .notFound)
        #expect(try #require(throws: CameraError.self) { try copy.stop("a", now: late) }.code == .notFound)
        #expect(try #require(throws: CameraError.self) { try copy.extend("unknown", now: t0) }.code == .notFound)
    }

    @Test("the session limit gives RESOURCE_EXHAUSTED; expired sessions free their place")
    func limit() throws {
        var sessions = sessions(limit: 2)
        _ = try sessions.start(id: "a", receivesAudio: false, now: t0)
        _ = try sessions.start(id: "b", receivesAudio: false, now: t0 + .seconds(10))
        let error = try #require(throws: CameraError.self) {
            try sessions.start(id: "c", receivesAudio: false, now: t0 + .seconds(11))
        }
        #expect(error.code == .resourceExhausted)
        _ = try sessions.start(id: "c", receivesAudio: false, now: t0 + .seconds(30))
        #expect(sessions.live(at: t0 + .seconds(30)).map(\.id) == ["b", "c"])
    }

    @Test("talkback: on and off in a session that receives audio; one talker per camera")
    func talkback() throws {
        var sessions = sessions()
        _ = try sessions.start(id: "a", receivesAudio: true, now: t0)
        _ = try sessions.start(id: "b", receivesAudio: true, now: t0)
        _ = try sessions.start(id: "mute", receivesAudio: false, now: t0)
        try sessions.startTalkback("a", now: t0)
        #expect(sessions.isTalking(at: t0))
        #expect(sessions.live(at: t0).filter(\.talking).map(\.id) == ["a"])
        for (id, why) in [("a", "already on"), ("b", "a talks"), ("mute", "no audio to the camera")] {
            let error = try #require(throws: CameraError.self) { try sessions.startTalkback(id, now: t0) }
            #expect(error.code == .failedPrecondition, "\(why)")
        }
        try sessions.stopTalkback("a", now: t0)
        #expect(!sessions.isTalking(at: t0))
        #expect(try #require(throws: CameraError.self) { try sessions.stopTalkback("a", now: t0) }.code == .failedPrecondition)
        try sessions.startTalkback("b", now: t0)
        #expect(sessions.isTalking(at: t0))
        #expect(!sessions.isTalking(at: t0 + .seconds(30)), "talkback ends with its session")
    }

    @Test("a camera without a speaker refuses talkback")
    func noSpeaker() throws {
        var sessions = sessions(talkback: false)
        _ = try sessions.start(id: "a", receivesAudio: true, now: t0)
        #expect(try #require(throws: CameraError.self) { try sessions.startTalkback("a", now: t0) }.code == .failedPrecondition)
    }

    @Test("stop ends a session at once")
    func stop() throws {
        var sessions = sessions()
        _ = try sessions.start(id: "a", receivesAudio: true, now: t0)
        try sessions.stop("a", now: t0 + .seconds(1))
        #expect(sessions.count == 0)
        #expect(try #require(throws: CameraError.self) { try sessions.stop("a", now: t0 + .seconds(1)) }.code == .notFound)
    }
}
