/// The fresh values of one SDP answer: ICE credentials, the DTLS certificate fingerprint, the session and
/// stream identifiers. Drawn from a random number generator given by the caller, so that tests can fix them.
///
/// The ICE password and fingerprint stand for secrets: draw them from `SystemRandomNumberGenerator`, never
/// from the simulation's seeded generator.
public struct AnswerSecrets: Sendable, Hashable {
    /// `a=ice-ufrag`: 8 ice-chars (RFC 8839 asks for at least 4).
    public var iceUfrag: String
    /// `a=ice-pwd`: 24 ice-chars (RFC 8839 asks for at least 22).
    public var icePwd: String
    /// `a=fingerprint` value: `sha-256` and 32 bytes in upper-case hex pairs joined by `:` (RFC 8122).
    public var fingerprint: String
    /// The `o=` session id: a number below 2^63 (JSEP §5.2.1).
    public var sessionID: UInt64
    /// The `a=msid` stream id of what the camera sends.
    public var streamID: String
    /// The RTCP CNAME of the camera's streams.
    public var cname: String
    /// The SSRC of the camera's audio.
    public var audioSSRC: UInt32
    /// The SSRC of the camera's video.
    public var videoSSRC: UInt32

    /// Secrets from given values.
    public init(
        iceUfrag: String, icePwd: String, fingerprint: String, sessionID: UInt64, streamID: String, cname: String,
        audioSSRC: UInt32, videoSSRC: UInt32
    ) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.sessionID = sessionID
        self.streamID = streamID
        self.cname = cname
        self.audioSSRC = audioSSRC
        self.videoSSRC = videoSSRC
    }

    /// `ice-char` of RFC 8839: letters, digits, `+` and `/`.
    static let iceCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    static let tokenCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// New secrets drawn from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> AnswerSecrets {
        func text(_ count: Int, _ alphabet: [Character]) -> String {
            String((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
        }
        let digest = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let hex = digest.map { byte in
            let s = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + s : s
        }
        return AnswerSecrets(
            iceUfrag: text(8, iceCharacters), icePwd: text(24, iceCharacters),
            fingerprint: "sha-256 " + hex.joined(separator: ":"),
            sessionID: UInt64.random(in: 1...UInt64(Int64.max), using: &generator),
            streamID: text(12, tokenCharacters), cname: text(16, tokenCharacters),
            audioSSRC: UInt32.random(in: 1...UInt32.max, using: &generator),
            videoSSRC: UInt32.random(in: 1...UInt32.max, using: &generator))
    }
}
