import Foundation
import HearthCameraSim
import Testing

@Suite("SDP answers (RFC 3264 offer/answer, JSEP)")
struct SDPAnswererTests {
    static func secrets(_ seed: UInt64 = 7) -> AnswerSecrets {
        var generator = FixedGenerator(state: seed)
        return .random(using: &generator)
    }

    static func answer(
        _ offer: String = ExampleOffer.chrome(), talkback: Bool = true, secrets: AnswerSecrets = secrets()
    ) throws -> SDPAnswerer.Answer {
        let answerer = SDPAnswerer(capabilities: MediaCapabilities(receivesAudio: talkback))
        return try answerer.answer(SessionDescription(parsing: offer), secrets: secrets)
    }

    @Test("each offered section is answered in order: same kind and mid, port 9, the common formats")
    func answersEachSection() throws {
        let offer = try SessionDescription(parsing: ExampleOffer.chrome())
        let result = try Self.answer()
        let answer = try SessionDescription(parsing: result.description.text)
        #expect(answer == result.description, "the answer's text parses back to itself")
        #expect(answer.media.count == offer.media.count)
        #expect(answer.media.map(\.kind) == offer.media.map(\.kind))
        #expect(answer.media.map(\.mid) == offer.media.map(\.mid))
        #expect(answer.media.map(\.port) == [9, 9, 9])
        #expect(answer.media.map(\.proto) == ["UDP/TLS/RTP/SAVPF", "UDP/TLS/RTP/SAVPF", "UDP/DTLS/SCTP"])
        // opus, PCMU, PCMA; not RED, G722, CN or telephone-event.
        #expect(answer.media[0].formats == ["111", "0", "8"])
        // VP8 and H264 with their RTX; not AV1 nor its RTX.
        #expect(answer.media[1].formats == ["96", "97", "102", "103"])
        #expect(answer.media[1].rtpMaps == ["96": "VP8/90000", "97": "rtx/90000", "102": "H264/90000", "103": "rtx/90000"])
        #expect(answer.media[1].formatParameters["103"] == "apt=102")
        #expect(answer.media[1].attributes(named: "rtcp-fb").contains("96 nack pli"))
        #expect(answer.media[2].formats == ["webrtc-datachannel"])
        #expect(answer.media[2].attribute("sctp-port") == "5000")
        #expect(answer.attribute("group") == "BUNDLE 0 1 2")
        #expect(answer.fields == [.init(type: "t", value: "0 0")])
        for section in answer.media {
            #expect(section.attribute("setup") == "active", "the offer said actpass")
            #expect(section.fields.contains(.init(type: "c", value: "IN IP4 0.0.0.0")))
        }
        for section in answer.media.prefix(2) {
            #expect(section.has("rtcp-mux"))
            #expect(section.attributes(named: "extmap") == ["4 urn:ietf:params:rtp-hdrext:sdes:mid"])
        }
        #expect(result.sendsVideo)
        #expect(result.receivesAudio)
    }

    /// Offer direction, whether the camera has a speaker, and the audio direction it answers.
    static let audioDirections: [(MediaDirection, Bool, MediaDirection)] = [
        (.sendrecv, true, .sendrecv), (.sendrecv, false, .sendonly),
        (.recvonly, true, .sendonly), (.recvonly, false, .sendonly),
        (.sendonly, true, .recvonly), (.sendonly, false, .inactive),
        (.inactive, true, .inactive), (.inactive, false, .inactive),
    ]

    @Test("audio direction is flipped; sendrecv stays unless the camera cannot receive", arguments: audioDirections)
    func audioDirection(_ offered: MediaDirection, _ talkback: Bool, _ answered: MediaDirection) throws {
        let result = try Self.answer(ExampleOffer.chrome(audio: offered), talkback: talkback)
        #expect(result.description.media[0].direction == answered)
        #expect(result.receivesAudio == answered.receives)
        #expect((result.description.media[0].attribute("msid") != nil) == answered.sends, "msid only for what it sends")
    }

    @Test("video: a camera sends but never receives it", arguments: [
        (MediaDirection.recvonly, MediaDirection.sendonly), (.sendrecv, .sendonly), (.sendonly, .inactive), (.inactive, .inactive),
    ])
    func videoDirection(_ offered: MediaDirection, _ answered: MediaDirection) throws {
        let result = try Self.answer(ExampleOffer.chrome(video: offered))
        #expect(result.description.media[1].direction == answered)
        #expect(result.sendsVideo == answered.sends)
    }

    @Test("a=setup: actpass and passive are answered active, active is answered passive",
          arguments: [("actpass", "active"), ("passive", "active"), ("active", "passive")])
    func setup(_ offered: String, _ answered: String) throws {
        let result = try Self.answer(ExampleOffer.chrome(setup: offered))
        #expect(result.description.media.allSatisfy { $0.attribute("setup") == answered })
    }

    @Test("ICE credentials and fingerprint are fresh for each answer and well-formed")
    func freshCredentials() throws {
        let one = try Self.answer(secrets: Self.secrets(1)).description
        let two = try Self.answer(secrets: Self.secrets(2)).description
        for answer in [one, two] {
            let section = answer.media[0]
            let ufrag = try #require(section.attribute("ice-ufrag"))
            let pwd = try #require(section.attribute("ice-pwd"))
            #expect(ufrag.count >= 4 && pwd.count >= 22, "RFC 8839 minimum lengths")
            #expect(ufrag != ExampleOffer.iceUfrag)
            let fingerprint = try #require(section.attribute("fingerprint"))
            #expect(fingerprint.hasPrefix("sha-256 "))
            #expect(fingerprint.dropFirst(8).split(separator: ":").count == 32)
            #expect(fingerprint != ExampleOffer.fingerprint)
            #expect(Set(answer.media.map { $0.attribute("ice-ufrag") }).count == 1, "one transport for the bundle")
        }
        #expect(one.media[0].attribute("ice-ufrag") != two.media[0].attribute("ice-ufrag"))
        #expect(one.media[0].attribute("fingerprint") != two.media[0].attribute("fingerprint"))
        #expect(one.origin.sessionID != two.origin.sessionID)
    }

    @Test("sections the camera cannot use are rejected with port 0 and left out of the bundle")
    func rejectedSections() throws {
        // Video offering AV1 only, and a text section: both rejected; audio answered.
        let offer = ExampleOffer.chrome(dataChannel: false)
            .replacingOccurrences(of: "m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 45 46", with: "m=video 9 UDP/TLS/RTP/SAVPF 45 46")
            .replacingOccurrences(of: "a=group:BUNDLE 0 1", with: "a=group:BUNDLE 0 1 2")
            + "m=text 9 UDP/TLS/RTP/SAVPF 98\r\nc=IN IP4 0.0.0.0\r\na=mid:2\r\na=rtpmap:98 t140/1000\r\n"
        let answer = try Self.answer(offer).description
        #expect(answer.media.map(\.kind) == ["audio", "video", "text"])
        #expect(answer.media.map(\.port) == [9, 0, 0])
        #expect(answer.media.map(\.mid) == ["0", "1", "2"])
        #expect(answer.media[1].formats == ["45", "46"], "a rejected section keeps the offer's formats")
        #expect(answer.attribute("group") == "BUNDLE 0")
        #expect(try SessionDescription(parsing: answer.text) == answer)
    }

    @Test("H264 is only taken in packetization mode 1")
    func h264Mode() throws {
        let offer = ExampleOffer.chrome()
            .replacingOccurrences(of: "packetization-mode=1", with: "packetization-mode=0")
        #expect(try Self.answer(offer).description.media[1].formats == ["96", "97"])
    }

    @Test("offers the camera cannot answer are refused with a clear error")
    func refused() throws {
        let noMedia = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
        #expect(throws: SDPError(.noMedia, "the offer has no m= section")) { try Self.answer(noMedia) }

        let noIce = ExampleOffer.chrome().replacingOccurrences(of: "a=ice-ufrag:\(ExampleOffer.iceUfrag)\r\n", with: "")
        let error = try #require(throws: SDPError.self) { try Self.answer(noIce) }
        #expect(error.code == .notWebRTC)
        #expect(error.message.contains("ice-ufrag"))

        let noFingerprint = ExampleOffer.chrome().replacingOccurrences(of: "a=fingerprint:\(ExampleOffer.fingerprint)\r\n", with: "")
        #expect(try #require(throws: SDPError.self) { try Self.answer(noFingerprint) }.code == .notWebRTC)

        let av1Only = ExampleOffer.chrome(audio: nil, dataChannel: false)
            .replacingOccurrences(of: "UDP/TLS/RTP/SAVPF 96 97 102 103 45 46", with: "UDP/TLS/RTP/SAVPF 45 46")
        #expect(try #require(throws: SDPError.self) { try Self.answer(av1Only) }.code == .unanswerable)

        let plainRTP = ExampleOffer.chrome(dataChannel: false).replacingOccurrences(of: "UDP/TLS/RTP/SAVPF", with: "RTP/AVP")
        #expect(try #require(throws: SDPError.self) { try Self.answer(plainRTP) }.code == .unanswerable, "no DTLS-SRTP")
    }
}

/// A deterministic generator for tests (SplitMix64).
struct FixedGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
