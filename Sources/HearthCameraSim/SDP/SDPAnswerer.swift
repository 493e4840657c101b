/// Answers a WebRTC offer as a camera would (RFC 3264 offer/answer, JSEP RFC 8829).
///
/// Each `m=` section of the offer gets one section in the answer, in the same order and of the same kind:
/// - audio/video over DTLS-SRTP (`UDP/TLS/RTP/SAVPF`): port 9, the offer's payload types the camera can
///   use (plus their `rtx`), their `rtpmap`/`fmtp` and the supported `rtcp-fb`, the direction flipped for the
///   camera (it sends audio and video, receives audio only with talkback, never video);
/// - a data channel (`UDP/DTLS/SCTP webrtc-datachannel`): port 9, `sctp-port` and `max-message-size`;
/// - anything else, or a section with no common codec: rejected with port 0 (RFC 3264 §6).
///
/// Answered sections carry the `mid` of the offer, fresh ICE credentials and fingerprint (``AnswerSecrets``),
/// and `a=setup:active` for an offer's `actpass`. The answer carries no ICE candidates: no media flows.
///
/// ```swift
/// let answerer = SDPAnswerer(capabilities: MediaCapabilities())
/// var random = SystemRandomNumberGenerator()
/// let answer = try answerer.answer(offer, secrets: .random(using: &random))
/// send(answer.description.text)
/// ```
public struct SDPAnswerer: Sendable {
    /// What the camera can send and receive.
    public var capabilities: MediaCapabilities

    /// An answerer for a camera with `capabilities`.
    public init(capabilities: MediaCapabilities) { self.capabilities = capabilities }

    /// An answer and what it agreed to.
    public struct Answer: Sendable, Hashable {
        /// The answer's description.
        public var description: SessionDescription
        /// Whether the camera receives audio in some answered section (so talkback can start).
        public var receivesAudio: Bool
        /// Whether the camera sends video in some answered section.
        public var sendsVideo: Bool
    }

    static let rtpProtocols: Set<String> = ["UDP/TLS/RTP/SAVPF", "UDP/TLS/RTP/SAVP", "TCP/TLS/RTP/SAVPF"]
    static let sctpProtocols: Set<String> = ["UDP/DTLS/SCTP", "TCP/DTLS/SCTP"]

    /// Answers `offer`.
    /// - Throws: ``SDPError`` `.noMedia` for an offer without `m=` sections, `.notWebRTC` when a section the
    ///   camera would answer lacks ICE credentials or a fingerprint, `.unanswerable` when every section
    ///   would be rejected.
    public func answer(_ offer: SessionDescription, secrets: AnswerSecrets) throws(SDPError) -> Answer {
        guard !offer.media.isEmpty else { throw SDPError(.noMedia, "the offer has no m= section") }
        var sections: [MediaDescription] = []
        var receivesAudio = false
        var sendsVideo = false
        for (index, section) in offer.media.enumerated() {
            let answered: MediaDescription?
            if section.isRejected && !section.has("bundle-only") {
                answered = nil
            } else if ["audio", "video"].contains(section.kind), Self.rtpProtocols.contains(section.proto) {
                answered = try rtp(section, index: index, offer: offer, secrets: secrets)
            } else if section.kind == "application", Self.sctpProtocols.contains(section.proto),
                section.formats == ["webrtc-datachannel"], capabilities.dataChannel
            {
                answered = try dataChannel(section, index: index, offer: offer, secrets: secrets)
            } else {
                answered = nil
            }
            guard let answered else {
                sections.append(Self.rejected(section))
                continue
            }
            if section.kind == "audio", answered.direction.receives { receivesAudio = true }
            if section.kind == "video", answered.direction.sends { sendsVideo = true }
            sections.append(answered)
        }
        guard sections.contains(where: { !$0.isRejected }) else {
            throw SDPError(
                .unanswerable,
                "the camera can answer none of the \(offer.media.count) media sections (no common codec or transport)")
        }
        var attributes: [SessionDescription.Attribute] = []
        if let group = offer.attributes(named: "group").compactMap({ $0 }).first(where: { $0.hasPrefix("BUNDLE") }) {
            let accepted = Set(sections.filter { !$0.isRejected }.compactMap(\.mid))
            let mids = group.split(separator: " ").dropFirst().map(String.init).filter(accepted.contains)
            if !mids.isEmpty { attributes.append(.init("group", (["BUNDLE"] + mids).joined(separator: " "))) }
        }
        attributes.append(.init("msid-semantic", " WMS \(secrets.streamID)"))
        let description = SessionDescription(
            origin: .init(sessionID: String(secrets.sessionID)), attributes: attributes, media: sections)
        return Answer(description: description, receivesAudio: receivesAudio, sendsVideo: sendsVideo)
    }

    /// An audio or video section, or nil to reject it.
    private func rtp(_ section: MediaDescription, index: Int, offer: SessionDescription, secrets: AnswerSecrets)
        throws(SDPError) -> MediaDescription?
    {
        let codecs = section.kind == "audio" ? capabilities.audioCodecs : capabilities.videoCodecs
        let maps = section.rtpMaps
        let parameters = section.formatParameters
        func map(_ format: String) -> MediaCapabilities.RTPMap? {
            (maps[format] ?? MediaCapabilities.RTPMap.staticTypes[format]).flatMap(MediaCapabilities.RTPMap.init)
        }
        let primary = Set(section.formats.filter { format in
            guard let map = map(format) else { return false }
            return codecs.contains { $0.matches(map, parameters: parameters[format]) }
        })
        guard !primary.isEmpty else { return nil }
        let formats = section.formats.filter { format in
            if primary.contains(format) { return true }
            guard map(format)?.name.lowercased() == "rtx",
                let apt = MediaCapabilities.Codec.parameters(parameters[format])["apt"]
            else { return false }
            return primary.contains(apt)
        }
        let canSend = section.kind == "audio" ? capabilities.sendsAudio : true
        let canReceive = section.kind == "audio" ? capabilities.receivesAudio : false
        let offered = section.direction
        let direction = MediaDirection(sends: offered.receives && canSend, receives: offered.sends && canReceive)

        var attributes = try transport(section, index: index, offer: offer, secrets: secrets)
        for case let value? in section.attributes(named: "extmap") {
            let parts = value.split(separator: " ")
            if parts.count >= 2, capabilities.headerExtensions.contains(String(parts[1])) {
                attributes.append(.init("extmap", "\(parts[0]) \(parts[1])"))
            }
        }
        attributes.append(.init(direction.rawValue))
        let track = "\(secrets.streamID)-\(section.kind)"
        if direction.sends { attributes.append(.init("msid", "\(secrets.streamID) \(track)")) }
        for name in ["rtcp-mux", "rtcp-rsize"] where section.has(name) { attributes.append(.init(name)) }
        let feedback = section.attributes(named: "rtcp-fb").compactMap { $0 }
        for format in formats {
            if let map = maps[format] ?? MediaCapabilities.RTPMap.staticTypes[format] {
                attributes.append(.init("rtpmap", "\(format) \(map)"))
            }
            for value in feedback {
                let parts = value.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, parts[0] == format || parts[0] == "*",
                    capabilities.rtcpFeedback.contains(String(parts[1]))
                else { continue }
                attributes.append(.init("rtcp-fb", value))
            }
            if let fmtp = parameters[format] { attributes.append(.init("fmtp", "\(format) \(fmtp)")) }
        }
        if direction.sends {
            let ssrc = section.kind == "audio" ? secrets.audioSSRC : secrets.videoSSRC
            attributes.append(.init("ssrc", "\(ssrc) cname:\(secrets.cname)"))
            attributes.append(.init("ssrc", "\(ssrc) msid:\(secrets.streamID) \(track)"))
        }
        return MediaDescription(
            kind: section.kind, port: 9, proto: section.proto, formats: formats, fields: [Self.connection],
            attributes: attributes)
    }

    private func dataChannel(
        _ section: MediaDescription, index: Int, offer: SessionDescription, secrets: AnswerSecrets
    ) throws(SDPError) -> MediaDescription {
        var attributes = try transport(section, index: index, offer: offer, secrets: secrets)
        attributes.append(.init("sctp-port", "5000"))
        attributes.append(.init("max-message-size", "262144"))
        return MediaDescription(
            kind: section.kind, port: 9, proto: section.proto, formats: section.formats, fields: [Self.connection],
            attributes: attributes)
    }

    /// The ICE, DTLS and `mid` attributes of an answered section, after checking the offer has its own.
    private func transport(
        _ section: MediaDescription, index: Int, offer: SessionDescription, secrets: AnswerSecrets
    ) throws(SDPError) -> [SessionDescription.Attribute] {
        // A bundled section may leave transport attributes to the group's first section (JSEP bundle-only).
        let tagged = offer.media.first { $0.mid != nil && $0.mid == Self.bundleTag(offer) }
        func offered(_ name: String) -> String? {
            section.attribute(name) ?? offer.attribute(name) ?? tagged?.attribute(name)
        }
        let label = "media section \(index + 1) (\(section.kind)\(section.mid.map { ", mid \($0)" } ?? ""))"
        for name in ["ice-ufrag", "ice-pwd", "fingerprint"] where (offered(name) ?? "").isEmpty {
            throw SDPError(.notWebRTC, "\(label) has no a=\(name), at media or session level")
        }
        let setup: String
        switch offered("setup") {
        case nil, "actpass", "passive": setup = "active"
        case "active": setup = "passive"
        case let other?: throw SDPError(.notWebRTC, "\(label) has a=setup:\(other); WebRTC uses actpass, active or passive")
        }
        var attributes: [SessionDescription.Attribute] = [
            .init("rtcp", "9 IN IP4 0.0.0.0"), .init("ice-ufrag", secrets.iceUfrag), .init("ice-pwd", secrets.icePwd),
            .init("fingerprint", secrets.fingerprint), .init("setup", setup),
        ]
        if section.kind == "application" { attributes.removeFirst() }
        if let mid = section.mid { attributes.append(.init("mid", mid)) }
        return attributes
    }

    private static func bundleTag(_ offer: SessionDescription) -> String? {
        offer.attributes(named: "group").compactMap { $0 }.first { $0.hasPrefix("BUNDLE ") }?
            .split(separator: " ").dropFirst().first.map(String.init)
    }

    private static let connection = SessionDescription.Field(type: "c", value: "IN IP4 0.0.0.0")

    /// A rejected section: port 0, the offer's proto and formats, its `mid` (RFC 3264 §6, JSEP §5.3.1).
    private static func rejected(_ section: MediaDescription) -> MediaDescription {
        var out = MediaDescription(
            kind: section.kind, port: 0, proto: section.proto, formats: section.formats, fields: [connection])
        if let mid = section.mid { out.attributes.append(.init("mid", mid)) }
        return out
    }
}
