/// What a simulated camera can send and receive, which decides how it answers an offer.
public struct MediaCapabilities: Sendable, Hashable {
    /// Audio codecs, in the camera's preference order.
    public var audioCodecs: [Codec]
    /// Video codecs, in the camera's preference order.
    public var videoCodecs: [Codec]
    /// Whether the camera sends audio (it has a microphone).
    public var sendsAudio: Bool
    /// Whether the camera receives audio (it has a speaker: talkback).
    public var receivesAudio: Bool
    /// Whether the camera accepts a WebRTC data channel (`m=application … UDP/DTLS/SCTP webrtc-datachannel`).
    public var dataChannel: Bool
    /// RTCP feedback the camera implements (`a=rtcp-fb` values without the payload type).
    public var rtcpFeedback: Set<String>
    /// RTP header extensions the camera implements (`a=extmap` URIs).
    public var headerExtensions: Set<String>

    /// A camera's capabilities; the defaults are a typical home camera's.
    public init(
        audioCodecs: [Codec] = [.opus, .pcmu, .pcma], videoCodecs: [Codec] = [.h264, .vp8], sendsAudio: Bool = true,
        receivesAudio: Bool = true, dataChannel: Bool = true,
        rtcpFeedback: Set<String> = ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"],
        headerExtensions: Set<String> = ["urn:ietf:params:rtp-hdrext:sdes:mid"]
    ) {
        self.audioCodecs = audioCodecs
        self.videoCodecs = videoCodecs
        self.sendsAudio = sendsAudio
        self.receivesAudio = receivesAudio
        self.dataChannel = dataChannel
        self.rtcpFeedback = rtcpFeedback
        self.headerExtensions = headerExtensions
    }

    /// An RTP payload format: encoding name, clock rate and channels as in `a=rtpmap`.
    public struct Codec: Sendable, Hashable {
        /// The encoding name, compared without case (`opus`, `H264`).
        public var name: String
        /// The RTP clock rate.
        public var clockRate: Int
        /// Audio channels; nil means 1 (RFC 8866 §6.6).
        public var channels: Int?

        /// A codec.
        public init(name: String, clockRate: Int, channels: Int? = nil) {
            self.name = name
            self.clockRate = clockRate
            self.channels = channels
        }

        public static let opus = Codec(name: "opus", clockRate: 48_000, channels: 2)
        public static let pcmu = Codec(name: "PCMU", clockRate: 8_000)
        public static let pcma = Codec(name: "PCMA", clockRate: 8_000)
        /// H.264 in packetization mode 1, constrained baseline or main profile (RFC 6184).
        public static let h264 = Codec(name: "H264", clockRate: 90_000)
        public static let vp8 = Codec(name: "VP8", clockRate: 90_000)

        /// Whether an offered format (`a=rtpmap` value and `a=fmtp` parameters) is this codec in a form the
        /// camera can use.
        func matches(_ map: RTPMap, parameters: String?) -> Bool {
            guard map.name.lowercased() == name.lowercased(), map.clockRate == clockRate,
                (map.channels ?? 1) == (channels ?? 1)
            else { return false }
            guard name.uppercased() == "H264" else { return true }
            let fmtp = Self.parameters(parameters)
            // RFC 6184: mode 0 when absent, profile-level-id 420010 (baseline) when absent.
            guard fmtp["packetization-mode"] == "1" else { return false }
            let profile = fmtp["profile-level-id"] ?? "420010"
            guard profile.count == 6, let idc = UInt8(profile.prefix(2), radix: 16) else { return false }
            return idc == 0x42 || idc == 0x4D
        }

        /// `a=fmtp` parameters `key=value;key=value` by key (lower-cased).
        static func parameters(_ text: String?) -> [String: String] {
            var out: [String: String] = [:]
            for pair in (text ?? "").split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard let key = kv.first else { continue }
                out[key.trimmingSpaces.lowercased()] = kv.count > 1 ? String(kv[1].trimmingSpaces) : ""
            }
            return out
        }
    }

    /// An `a=rtpmap` value without the payload type: `opus/48000/2`.
    struct RTPMap: Hashable {
        var name: String
        var clockRate: Int
        var channels: Int?

        init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty, let rate = Int(parts[1]) else { return nil }
            name = String(parts[0])
            clockRate = rate
            if parts.count == 3 {
                guard let channels = Int(parts[2]) else { return nil }
                self.channels = channels
            }
        }

        /// The static audio payload types of RFC 3551 a browser may offer without `a=rtpmap`.
        static let staticTypes: [String: String] = ["0": "PCMU/8000", "8": "PCMA/8000", "9": "G722/8000"]
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
