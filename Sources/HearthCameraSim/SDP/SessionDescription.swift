/// An SDP session description (RFC 8866, which obsoletes RFC 4566): the session part, then one
/// ``MediaDescription`` per `m=` line.
///
/// ```swift
/// let offer = try SessionDescription(parsing: offerText)     // throws SDPError
/// for media in offer.media { print(media.kind, media.mid ?? "-", media.direction) }
/// let text = answer.text                                      // CRLF-separated lines
/// ```
///
/// Lines the camera does not interpret (`i=`, `u=`, `e=`, `p=`, `c=`, `b=`, `t=`, `r=`, `z=`, `k=`) are kept
/// as ``Field``s in their order; attributes (`a=`) as ``Attribute``s.
public struct SessionDescription: Sendable, Hashable {
    /// The `o=` line: who made the description, and its id and version.
    public var origin: Origin
    /// The `s=` line (WebRTC uses `-`).
    public var sessionName: String
    /// The session-level lines between `s=` and the attributes, in order (at least one `t=`).
    public var fields: [Field]
    /// The session-level `a=` lines, in order.
    public var attributes: [Attribute]
    /// The media sections, in order.
    public var media: [MediaDescription]

    /// A description from its parts; ``fields`` must hold a `t=` line for ``text`` to parse again.
    public init(
        origin: Origin, sessionName: String = "-", fields: [Field] = [Field(type: "t", value: "0 0")],
        attributes: [Attribute] = [], media: [MediaDescription] = []
    ) {
        self.origin = origin
        self.sessionName = sessionName
        self.fields = fields
        self.attributes = attributes
        self.media = media
    }

    /// The `o=` line's six fields.
    public struct Origin: Sendable, Hashable {
        /// The user name (`-` when there is none).
        public var username: String
        /// A numeric session id.
        public var sessionID: String
        /// A numeric version, raised at each change.
        public var sessionVersion: String
        /// `IN`.
        public var networkType: String
        /// `IP4` or `IP6`.
        public var addressType: String
        /// The address of the machine that made the description.
        public var address: String

        /// An origin from its fields.
        public init(
            username: String = "-", sessionID: String, sessionVersion: String = "2", networkType: String = "IN",
            addressType: String = "IP4", address: String = "127.0.0.1"
        ) {
            self.username = username
            self.sessionID = sessionID
            self.sessionVersion = sessionVersion
            self.networkType = networkType
            self.addressType = addressType
            self.address = address
        }

        var text: String { [username, sessionID, sessionVersion, networkType, addressType, address].joined(separator: " ") }
    }

    /// A line kept as it came: its type letter and its value.
    public struct Field: Sendable, Hashable {
        /// The line's type letter (`c`, `b`, `t`, …).
        public var type: Character
        /// Everything after `=`.
        public var value: String

        /// A line of `type` with `value`.
        public init(type: Character, value: String) {
            self.type = type
            self.value = value
        }
    }

    /// An `a=` line: a name and, for value attributes, what follows the first `:`.
    public struct Attribute: Sendable, Hashable {
        /// The attribute's name (`mid`, `rtpmap`, `sendrecv`, …).
        public var name: String
        /// The value after `:`; nil for a property attribute such as `a=rtcp-mux`.
        public var value: String?

        /// An attribute; `value` nil for a property attribute.
        public init(_ name: String, _ value: String? = nil) {
            self.name = name
            self.value = value
        }

        var text: String { value.map { "\(name):\($0)" } ?? name }
    }

    /// The values of the session-level attributes named `name`, in order (nil for property attributes).
    public func attributes(named name: String) -> [String?] {
        attributes.filter { $0.name == name }.map(\.value)
    }

    /// The first session-level attribute named `name`: its value, or `""` for a property attribute.
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }.map { $0.value ?? "" }
    }

    /// The description as text: CRLF-separated lines in RFC 8866 order, ending with CRLF.
    public var text: String {
        var lines = ["v=0", "o=\(origin.text)", "s=\(sessionName)"]
        lines += fields.map { "\($0.type)=\($0.value)" }
        lines += attributes.map { "a=\($0.text)" }
        for section in media {
            lines += section.lines
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
