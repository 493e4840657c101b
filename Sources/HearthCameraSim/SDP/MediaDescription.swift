/// One media section of an SDP description: the `m=` line and the lines under it up to the next `m=`.
///
/// `m=<media> <port>[/<count>] <proto> <fmt> …` (RFC 8866 §5.14). For RTP profiles the formats are payload
/// type numbers described by `a=rtpmap` / `a=fmtp` / `a=rtcp-fb`; for a WebRTC data channel the single
/// format is `webrtc-datachannel`.
public struct MediaDescription: Sendable, Hashable {
    /// The media kind: `audio`, `video`, `application`, `text`, `message`, …
    public var kind: String
    /// The transport port; 9 (discard) in WebRTC, 0 for a rejected section.
    public var port: UInt16
    /// The number of ports after `/`, if given.
    public var portCount: Int?
    /// The transport protocol: `UDP/TLS/RTP/SAVPF`, `UDP/DTLS/SCTP`, …
    public var proto: String
    /// The media formats, in preference order.
    public var formats: [String]
    /// The `i=`, `c=`, `b=` and `k=` lines of the section, in order.
    public var fields: [SessionDescription.Field]
    /// The section's `a=` lines, in order.
    public var attributes: [SessionDescription.Attribute]

    /// A media section from its parts.
    public init(
        kind: String, port: UInt16, portCount: Int? = nil, proto: String, formats: [String],
        fields: [SessionDescription.Field] = [], attributes: [SessionDescription.Attribute] = []
    ) {
        self.kind = kind
        self.port = port
        self.portCount = portCount
        self.proto = proto
        self.formats = formats
        self.fields = fields
        self.attributes = attributes
    }

    /// The values of the attributes named `name`, in order (nil for property attributes).
    public func attributes(named name: String) -> [String?] {
        attributes.filter { $0.name == name }.map(\.value)
    }

    /// The first attribute named `name`: its value, or `""` for a property attribute.
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }.map { $0.value ?? "" }
    }

    /// Whether the section has the property (or value) attribute `name`.
    public func has(_ name: String) -> Bool { attributes.contains { $0.name == name } }

    /// The `a=mid` value, if any.
    public var mid: String? { attribute("mid") }

    /// The direction attribute (`sendrecv` when none is given, RFC 8866 §6.7).
    public var direction: MediaDirection {
        attributes.lazy.compactMap { MediaDirection(rawValue: $0.name) }.first ?? .sendrecv
    }

    /// Whether the section was rejected (port 0, RFC 3264 §6).
    public var isRejected: Bool { port == 0 }

    /// `a=rtpmap` values by payload type: `111 opus/48000/2` → `["111": "opus/48000/2"]`.
    public var rtpMaps: [String: String] { Self.byFormat(attributes(named: "rtpmap")) }

    /// `a=fmtp` values by payload type.
    public var formatParameters: [String: String] { Self.byFormat(attributes(named: "fmtp")) }

    private static func byFormat(_ values: [String?]) -> [String: String] {
        var out: [String: String] = [:]
        for case let value? in values {
            let parts = value.split(separator: " ", maxSplits: 1)
            guard let format = parts.first else { continue }
            out[String(format)] = parts.count > 1 ? String(parts[1]) : ""
        }
        return out
    }

    var lines: [String] {
        let port = portCount.map { "\(self.port)/\($0)" } ?? "\(self.port)"
        var lines = ["m=\(kind) \(port) \(proto) \(formats.joined(separator: " "))"]
        lines += fields.map { "\($0.type)=\($0.value)" }
        lines += attributes.map { "a=\($0.text)" }
        return lines
    }
}

/// The direction of a media section, from the point of view of the description's author (RFC 8866 §6.7).
public enum MediaDirection: String, Sendable, Hashable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// The direction for an author that sends and receives as said.
    public init(sends: Bool, receives: Bool) {
        switch (sends, receives) {
        case (true, true): self = .sendrecv
        case (true, false): self = .sendonly
        case (false, true): self = .recvonly
        case (false, false): self = .inactive
        }
    }

    /// Whether the author sends media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// Whether the author receives media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}
