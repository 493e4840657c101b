/// WebRTC offers shaped as Chrome sends them for a camera's live view, for tools, demos and tests:
/// an audio section (opus, RED, G722, PCMU, PCMA, CN, telephone-event), a video section (VP8, H264, AV1,
/// each with RTX) and a data channel, bundled, with ICE credentials and a DTLS fingerprint.
public enum ExampleOffer {
    /// The ICE user fragment of the example offers.
    public static let iceUfrag = "Gq8Y"
    /// The DTLS fingerprint of the example offers.
    public static let fingerprint =
        "sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08"

    /// An offer text with CRLF line ends.
    /// - Parameters:
    ///   - audio: the audio section's direction (`sendrecv` to talk to the camera); nil leaves it out.
    ///   - video: the video section's direction (`recvonly` to watch); nil leaves it out.
    ///   - dataChannel: whether to add a data channel section.
    ///   - setup: the `a=setup` of every section.
    public static func chrome(
        audio: MediaDirection? = .sendrecv, video: MediaDirection? = .recvonly, dataChannel: Bool = true,
        setup: String = "actpass"
    ) -> String {
        var mids: [String] = []
        var sections: [String] = []
        let transport = [
            "c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0", "a=ice-ufrag:\(iceUfrag)", "a=ice-pwd:q0QkH7pG1mKmJ0vX3lJ3RkLd",
            "a=ice-options:trickle", "a=fingerprint:\(fingerprint)", "a=setup:\(setup)",
        ]
        if let audio {
            let mid = "\(mids.count)"
            mids.append(mid)
            sections += ["m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126"] + transport + [
                "a=mid:\(mid)", "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
                "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid", "a=\(audio.rawValue)",
                "a=msid:- 6b3c2a1e-9f0d-4c55-8a77-2d6f0e1c9b41", "a=rtcp-mux", "a=rtcp-rsize",
                "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc", "a=fmtp:111 minptime=10;useinbandfec=1",
                "a=rtpmap:63 red/48000/2", "a=fmtp:63 111/111", "a=rtpmap:9 G722/8000", "a=rtpmap:0 PCMU/8000",
                "a=rtpmap:8 PCMA/8000", "a=rtpmap:13 CN/8000", "a=rtpmap:110 telephone-event/48000",
                "a=rtpmap:126 telephone-event/8000", "a=ssrc:3735928559 cname:hG8Qw2nL0pZc1xYv",
            ]
        }
        if let video {
            let mid = "\(mids.count)"
            mids.append(mid)
            let feedback = ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"]
            sections += ["m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 45 46"] + transport + [
                "a=mid:\(mid)", "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                "a=\(video.rawValue)", "a=rtcp-mux", "a=rtcp-rsize", "a=rtpmap:96 VP8/90000",
            ] + feedback.map { "a=rtcp-fb:96 \($0)" } + [
                "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96", "a=rtpmap:102 H264/90000",
            ] + feedback.map { "a=rtcp-fb:102 \($0)" } + [
                "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
                "a=rtpmap:103 rtx/90000", "a=fmtp:103 apt=102", "a=rtpmap:45 AV1/90000",
                "a=rtcp-fb:45 nack", "a=rtpmap:46 rtx/90000", "a=fmtp:46 apt=45",
            ]
        }
        if dataChannel {
            let mid = "\(mids.count)"
            mids.append(mid)
            sections += ["m=application 9 UDP/DTLS/SCTP webrtc-datachannel"] + transport.filter { !$0.hasPrefix("a=rtcp:") } + [
                "a=mid:\(mid)", "a=sctp-port:5000", "a=max-message-size:262144",
            ]
        }
        var session = ["v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0"]
        if !mids.isEmpty { session.append("a=group:BUNDLE \(mids.joined(separator: " "))") }
        session += ["a=extmap-allow-mixed", "a=msid-semantic: WMS"]
        return (session + sections).joined(separator: "\r\n") + "\r\n"
    }
}
