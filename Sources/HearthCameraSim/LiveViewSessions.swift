/// The WebRTC live-view sessions of one camera and who talks in them.
///
/// A value whose events are `mutating` functions; the time is always an argument, so tests move it by hand.
///
/// ```
///            start (answer agreed)          extend: expires = now + duration
///   (none) ──────────────────────▶ live ◀───────────────────────────────┐
///                                  │ │  └─────────────────────────────────┘
///                                  │ └─ startTalkback (audio received, nobody else talks) ─▶ talking
///                                  │                                 stopTalkback ◀─────────┘
///                                  └─ stop, or expire(now) once now ≥ expires ─▶ (none)
/// ```
/// A session past its expiry is gone for every command at once, even before ``expire(now:)`` removes it.
public struct LiveViewSessions: Sendable {
    /// One live-view session.
    public struct Session: Sendable, Hashable {
        /// The media session id given to the caller.
        public var id: String
        /// When it ends unless extended.
        public var expires: ContinuousClock.Instant
        /// Whether the agreed SDP lets the camera receive audio (talkback possible).
        public var receivesAudio: Bool
        /// Whether talkback is on.
        public var talking: Bool
    }

    /// How long a session lives after a start or an extension.
    public var duration: Duration
    /// How many sessions may be live at once.
    public var limit: Int
    /// Whether the camera has a speaker at all.
    public var supportsTalkback: Bool
    private var sessions: [String: Session] = [:]

    /// No sessions yet.
    public init(duration: Duration, limit: Int, supportsTalkback: Bool) {
        self.duration = duration
        self.limit = limit
        self.supportsTalkback = supportsTalkback
    }

    /// The sessions live at `now`, by id order.
    public func live(at now: ContinuousClock.Instant) -> [Session] {
        sessions.values.filter { $0.expires > now }.sorted { $0.id < $1.id }
    }

    /// How many sessions are held, expired ones not yet removed included.
    public var count: Int { sessions.count }

    /// Starts a session.
    /// - Throws: ``CameraError`` RESOURCE_EXHAUSTED when ``limit`` sessions are live.
    public mutating func start(id: String, receivesAudio: Bool, now: ContinuousClock.Instant) throws(CameraError)
        -> Session
    {
        _ = expire(now: now)
        guard sessions.count < limit else {
            throw CameraError(.resourceExhausted, "the camera already streams \(limit) live views")
        }
        let session = Session(id: id, expires: now + duration, receivesAudio: receivesAudio, talking: false)
        sessions[id] = session
        return session
    }

    /// Extends a session to `now + duration`.
    /// - Throws: NOT_FOUND for an unknown or expired session.
    public mutating func extend(_ id: String, now: ContinuousClock.Instant) throws(CameraError) -> Session {
        var session = try live(id, now: now)
        session.expires = now + duration
        sessions[id] = session
        return session
    }

    /// Ends a session.
    /// - Throws: NOT_FOUND for an unknown or expired session.
    public mutating func stop(_ id: String, now: ContinuousClock.Instant) throws(CameraError) {
        _ = try live(id, now: now)
        sessions[id] = nil
    }

    /// Turns talkback on in a session.
    /// - Throws: NOT_FOUND for an unknown or expired session; FAILED_PRECONDITION when the camera has no
    ///   speaker, the session's answer does not receive audio, talkback is already on, or another session talks.
    public mutating func startTalkback(_ id: String, now: ContinuousClock.Instant) throws(CameraError) {
        var session = try live(id, now: now)
        guard supportsTalkback else { throw CameraError(.failedPrecondition, "this camera has no speaker for talkback") }
        guard session.receivesAudio else {
            throw CameraError(.failedPrecondition, "session \(id) does not send audio to the camera (no sendrecv or sendonly audio in the offer)")
        }
        guard !session.talking else { throw CameraError(.failedPrecondition, "talkback is already on in session \(id)") }
        if let other = live(at: now).first(where: \.talking) {
            throw CameraError(.failedPrecondition, "session \(other.id) is already talking through the camera's speaker")
        }
        session.talking = true
        sessions[id] = session
    }

    /// Turns talkback off in a session.
    /// - Throws: NOT_FOUND for an unknown or expired session; FAILED_PRECONDITION when talkback is off.
    public mutating func stopTalkback(_ id: String, now: ContinuousClock.Instant) throws(CameraError) {
        var session = try live(id, now: now)
        guard session.talking else { throw CameraError(.failedPrecondition, "talkback is not on in session \(id)") }
        session.talking = false
        sessions[id] = session
    }

    /// Removes the sessions that expired by `now` and returns them.
    public mutating func expire(now: ContinuousClock.Instant) -> [Session] {
        let expired = sessions.values.filter { $0.expires <= now }
        for session in expired { sessions[session.id] = nil }
        return expired.sorted { $0.id < $1.id }
    }

    /// Whether a session talks now.
    public func isTalking(at now: ContinuousClock.Instant) -> Bool { live(at: now).contains(where: \.talking) }

    private func live(_ id: String, now: ContinuousClock.Instant) throws(CameraError) -> Session {
        guard let session = sessions[id], session.expires > now else {
            throw CameraError(.notFound, "no live media session \(id) (unknown, stopped or expired)")
        }
        return session
    }
}
