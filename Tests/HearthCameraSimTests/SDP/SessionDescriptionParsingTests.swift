import Foundation
import HearthCameraSim
import Testing

@Suite("SDP parsing (RFC 8866)")
struct SessionDescriptionParsingTests {
    @Test("a browser's offer parses into its session and media sections")
    func browserOffer() throws {
        let offer = try SessionDescription(parsing: ExampleOffer.chrome())
        #expect(offer.origin.sessionID == "4611731400430051336")
        #expect(offer.origin.sessionVersion == "2")
        #expect(offer.origin.address == "127.0.0.1")
        #expect(offer.sessionName == "-")
        #expect(offer.fields == [.init(type: "t", value: "0 0")])
        #expect(offer.attribute("group") == "BUNDLE 0 1 2")
        #expect(offer.media.map(\.kind) == ["audio", "video", "application"])
        #expect(offer.media.map(\.mid) == ["0", "1", "2"])
        #expect(offer.media.map(\.direction) == [.sendrecv, .recvonly, .sendrecv])
        #expect(offer.media[0].formats == ["111", "63", "9", "0", "8", "13", "110", "126"])
        #expect(offer.media[0].rtpMaps["111"] == "opus/48000/2")
        #expect(offer.media[1].formatParameters["97"] == "apt=96")
        #expect(offer.media[2].proto == "UDP/DTLS/SCTP")
        #expect(offer.media[2].formats == ["webrtc-datachannel"])
        #expect(offer.media[0].has("rtcp-mux"))
        #expect(offer.media[0].attribute("rtcp-mux") == "")
    }

    @Test("text round-trips: parsing what text wrote gives the same description")
    func roundTrip() throws {
        let offer = try SessionDescription(parsing: ExampleOffer.chrome())
        #expect(offer.text.hasSuffix("\r\n"))
        #expect(try SessionDescription(parsing: offer.text) == offer)
        #expect(offer.text == ExampleOffer.chrome(), "the example offer is already in canonical form")
    }

    @Test("lone LF line ends and a trailing empty line are accepted")
    func lineEnds() throws {
        let lf = ExampleOffer.chrome().replacingOccurrences(of: "\r\n", with: "\n")
        #expect(try SessionDescription(parsing: lf) == SessionDescription(parsing: ExampleOffer.chrome()))
        #expect(try SessionDescription(parsing: lf + "\n").media.count == 3)
    }

    @Test("a description without media parses (the answerer refuses it)")
    func noMedia() throws {
        let description = try SessionDescription(parsing: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n")
        #expect(description.media.isEmpty)
    }

    @Test("s= may be a single space, as RFC 8866 allows")
    func spaceName() throws {
        #expect(try SessionDescription(parsing: "v=0\no=- 1 1 IN IP4 0.0.0.0\ns= \nt=0 0\n").sessionName == " ")
    }

    static let head = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\n"
    static let audio = "m=audio 9 UDP/TLS/RTP/SAVPF 0\r\nc=IN IP4 0.0.0.0\r\n"

    /// Malformed descriptions, the code they are refused with, and the line it names (nil: none).
    static let malformed: [(String, String, SDPError.Code, Int?)] = [
        ("empty", "", .missing, nil),
        ("not SDP", "hello world", .malformedLine, 1),
        ("upper-case type", "V=0\r\n", .malformedLine, 1),
        ("space before =", "v =0\r\n", .malformedLine, 1),
        ("version 1", "v=1\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n", .badValue, 1),
        ("no o=", "v=0\r\ns=-\r\nt=0 0\r\n", .misplaced, 2),
        ("o= with five fields", "v=0\r\no=- 1 1 IN IP4\r\ns=-\r\nt=0 0\r\n", .badValue, 2),
        ("o= with a word for id", "v=0\r\no=- abc 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n", .badValue, 2),
        ("empty s=", "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=\r\nt=0 0\r\n", .badValue, 3),
        ("no t=", head + "a=foo\r\n" + audio, .missing, 5),
        ("unknown type", head + "t=0 0\r\nx=hello\r\n", .unknownType, 5),
        ("whitespace after =", head + "t= 0 0\r\n", .malformedLine, 4),
        ("t= with one number", head + "t=0\r\n", .badValue, 4),
        ("a= before t=", head + "a=recvonly\r\nt=0 0\r\n", .misplaced, 5),
        ("r= without t=", head + "c=IN IP4 0.0.0.0\r\nr=7d 1h 0 25h\r\nt=0 0\r\n", .misplaced, 5),
        ("two session c=", head + "c=IN IP4 0.0.0.0\r\nc=IN IP4 0.0.0.0\r\nt=0 0\r\n", .misplaced, 5),
        ("c= with two fields", head + "c=IN IP4\r\nt=0 0\r\n", .badValue, 4),
        ("b= without a number", head + "b=AS:lots\r\nt=0 0\r\n", .badValue, 4),
        ("m= port too large", head + "t=0 0\r\nm=audio 99999 UDP/TLS/RTP/SAVPF 0\r\nc=IN IP4 0.0.0.0\r\n", .badValue, 5),
        ("m= without formats", head + "t=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF\r\nc=IN IP4 0.0.0.0\r\n", .badValue, 5),
        ("m= without c=", head + "t=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=sendrecv\r\n", .missing, 5),
        ("media a= before c=", head + "t=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=sendrecv\r\nc=IN IP4 0.0.0.0\r\n", .misplaced, 7),
        ("a= without a name", head + "t=0 0\r\na=:value\r\n", .badValue, 5),
        ("empty line inside", head + "\r\nt=0 0\r\n", .malformedLine, 4),
        ("NUL in a value", head + "t=0 0\r\na=tool:x\u{0}y\r\n", .malformedLine, 5),
    ]

    @Test("malformed descriptions are refused with the code and line", arguments: malformed)
    func refused(_ name: String, _ text: String, _ code: SDPError.Code, _ line: Int?) {
        do {
            let parsed = try SessionDescription(parsing: text)
            Issue.record("\(name): parsed as \(parsed)")
        } catch {
            #expect(error.code == code, "\(name): \(error)")
            #expect(error.line == line, "\(name): \(error)")
            // The message (what the caller reads) names the line it refers to.
            if let line { #expect(error.description.contains("\(line)"), "\(name): \(error.description)") }
        }
    }

    @Test("a description longer than the limit is refused before parsing")
    func tooLarge() {
        let text = ExampleOffer.chrome() + String(repeating: "a=x-padding:0123456789\r\n", count: 4000)
        #expect(throws: SDPError(.tooLarge, "\(text.utf8.count) bytes, at most 65536 accepted")) {
            try SessionDescription(parsing: text)
        }
    }
}
