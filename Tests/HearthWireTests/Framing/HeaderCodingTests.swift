import Testing

@testable import HearthWire

@Suite("grpc-timeout, grpc-message and -bin metadata")
struct HeaderCodingTests {
    @Test(
        "grpc-timeout parses every unit",
        arguments: [
            ("1H", Int64(3_600_000_000_000)), ("2M", 120_000_000_000), ("3S", 3_000_000_000), ("4m", 4_000_000),
            ("5u", 5_000), ("6n", 6), ("99999999S", 99_999_999_000_000_000),
        ])
    func timeoutParses(header: String, nanoseconds: Int64) {
        #expect(GRPCTimeout(header: header)?.nanoseconds == nanoseconds)
    }

    @Test("malformed grpc-timeout values are refused", arguments: ["", "S", "1", "1s", "123456789S", "-1S", "1.5S", "1 S"])
    func timeoutRefuses(header: String) {
        #expect(GRPCTimeout(header: header) == nil)
    }

    @Test("grpc-timeout is formatted in at most 8 digits, never shorter than asked")
    func timeoutFormats() {
        #expect(GRPCTimeout(.milliseconds(200)).headerValue == "200000u")
        #expect(GRPCTimeout(.seconds(1000)).headerValue == "1000000m")
        #expect(GRPCTimeout(.seconds(86_400 * 365)).headerValue == "31536000S")
        let odd = GRPCTimeout(nanoseconds: 123_456_789_123)
        #expect(GRPCTimeout(header: odd.headerValue)!.nanoseconds >= odd.nanoseconds)
    }

    @Test("grpc-message percent-encoding round-trips any text")
    func percentEncoding() {
        for text in ["plain", "100% done", "naïve – ünïcode ✓", "line\nbreak", "", "%", "%zz"] {
            let encoded = PercentEncoding.encode(text)
            #expect(encoded.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E })
            #expect(PercentEncoding.decode(encoded) == text)
        }
        #expect(PercentEncoding.encode("a%b") == "a%25b")
        // A malformed escape is kept as it is.
        #expect(PercentEncoding.decode("50%zz") == "50%zz")
    }

    @Test("-bin metadata travels base64 without padding and decodes with or without it")
    func binaryMetadata() {
        let bytes: [UInt8] = [0, 1, 254, 255]
        var metadata = Metadata()
        metadata.add("x-blob-bin", binary: bytes)
        let wire = metadata.wireHeaders
        #expect(wire.count == 1 && !wire[0].1.hasSuffix("="))
        var decoded = Metadata()
        let addedBlob = decoded.addWire(name: "x-blob-bin", value: wire[0].1)
        #expect(addedBlob)
        #expect(decoded["x-blob-bin"] == .binary(bytes))
        let addedPadded = decoded.addWire(name: "x-pad-bin", value: "AAH+/w==")
        #expect(addedPadded)
        #expect(decoded["x-pad-bin"] == .binary(bytes))
        let addedBad = decoded.addWire(name: "x-bad-bin", value: "!!!")
        #expect(!addedBad)
    }

    @Test("status codes outside 0...16 read as UNKNOWN")
    func statusCodes() {
        #expect(Status.Code(rawValue: 17) == .unknown)
        #expect(Status.Code(rawValue: -1) == .unknown)
        #expect(Status.Code.notFound.description == "NOT_FOUND")
        #expect(RPCError(code: .ok, message: "x").code == .unknown)
    }
}
