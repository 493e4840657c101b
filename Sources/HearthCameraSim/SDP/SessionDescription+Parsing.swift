extension SessionDescription {
    /// The largest description ``init(parsing:maximumBytes:)`` accepts by default: 64 KiB (a browser's offer
    /// with audio, video and a data channel is 3 to 6 KiB).
    public static let defaultMaximumBytes = 65_536

    /// Parses a description by the grammar of RFC 8866 §5 and §9.
    ///
    /// Lines end with CRLF (a lone LF is accepted, as most parsers do); empty lines may only trail. The
    /// session part must start `v=0`, `o=` (six fields), `s=`, have at least one `t=`, keep the order of
    /// §5 (`i= u= e= p= c= b= t= r= z= k= a=`), and every media section must have a `c=` unless the session
    /// has one. A line type RFC 8866 does not define makes the whole description invalid (§5).
    ///
    /// - Parameter maximumBytes: longer texts are refused before parsing.
    /// - Throws: ``SDPError`` naming the line and the mistake.
    public init(parsing text: String, maximumBytes: Int = SessionDescription.defaultMaximumBytes) throws(SDPError) {
        guard text.utf8.count <= maximumBytes else {
            throw SDPError(.tooLarge, "\(text.utf8.count) bytes, at most \(maximumBytes) accepted")
        }
        // By scalars: to Swift, "\r\n" is one Character, which is not "\n".
        var raw = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            Substring(line.last == "\r" ? line.dropLast() : line)
        }
        while raw.last?.isEmpty == true { raw.removeLast() }
        var lines: [Line] = []
        for (index, content) in raw.enumerated() { lines.append(try Line(content, number: index + 1)) }
        var parser = Parser(lines: lines)
        self = try parser.parse()
    }

    /// One `<type>=<value>` line and where it was.
    struct Line {
        var type: Character
        var value: String
        var number: Int

        static let knownTypes: Set<Character> = ["v", "o", "s", "i", "u", "e", "p", "c", "b", "t", "r", "z", "k", "a", "m"]

        init(_ content: Substring, number: Int) throws(SDPError) {
            self.number = number
            guard let first = content.first, content.dropFirst().first == "=" else {
                throw SDPError(.malformedLine, "expected <letter>=<value>, got '\(content.prefix(40))'", line: number)
            }
            guard first.isASCII, first.isLowercase else {
                throw SDPError(.malformedLine, "the type must be one lower-case letter, got '\(first)'", line: number)
            }
            guard Self.knownTypes.contains(first) else {
                throw SDPError(.unknownType, "'\(first)=' is not an SDP line type", line: number)
            }
            let value = content.dropFirst(2)
            if let bad = value.unicodeScalars.first(where: { $0 == "\0" || $0 == "\r" }) {
                throw SDPError(
                    .malformedLine, "character U+\(String(bad.value, radix: 16, uppercase: true)) is not allowed",
                    line: number)
            }
            // s= and i= are free text ("s= " is RFC 8866's own example of an empty name); elsewhere there
            // must be no whitespace after '='.
            if first != "s", first != "i", value.first == " " || value.first == "\t" {
                throw SDPError(.malformedLine, "whitespace after '='", line: number)
            }
            type = first
            self.value = String(value)
        }
    }

    private struct Parser {
        let lines: [Line]
        var position = 0

        init(lines: [Line]) { self.lines = lines }

        /// Order of the session-level lines (RFC 8866 §5): each line's rank may not be lower than the one
        /// before it. `t=`/`r=` share a rank; `r=` must follow a `t=` or `r=`.
        static let sessionRank: [Character: Int] = [
            "i": 3, "u": 4, "e": 5, "p": 6, "c": 7, "b": 8, "t": 9, "r": 9, "z": 10, "k": 11, "a": 12,
        ]
        static let mediaRank: [Character: Int] = ["i": 1, "c": 2, "b": 3, "k": 4, "a": 5]
        static let sessionSingles: Set<Character> = ["i", "u", "c", "z", "k"]
        static let mediaSingles: Set<Character> = ["i", "k"]

        mutating func parse() throws(SDPError) -> SessionDescription {
            let version = try expect("v", "the description must start with v=")
            guard version.value == "0" else {
                throw SDPError(.badValue, "only protocol version 0 exists, got v=\(version.value)", line: version.number)
            }
            let origin = try Self.origin(try expect("o", "v= must be followed by o="))
            let name = try expect("s", "o= must be followed by s=")
            guard !name.value.isEmpty else {
                throw SDPError(.badValue, "s= must not be empty (use s=- for no name)", line: name.number)
            }
            var description = SessionDescription(origin: origin, sessionName: name.value, fields: [])
            try parseBlock(
                ranks: Self.sessionRank, singles: Self.sessionSingles, base: 3,
                fields: &description.fields, attributes: &description.attributes)
            guard description.fields.contains(where: { $0.type == "t" }) else {
                throw SDPError(.missing, "the session has no t= line", line: lines[safe: position]?.number)
            }
            let sessionHasConnection = description.fields.contains { $0.type == "c" }
            while position < lines.count {
                let line = lines[position]
                position += 1
                var section = try Self.media(line)
                try parseBlock(
                    ranks: Self.mediaRank, singles: Self.mediaSingles, base: 1,
                    fields: &section.fields, attributes: &section.attributes)
                guard sessionHasConnection || section.fields.contains(where: { $0.type == "c" }) else {
                    throw SDPError(
                        .missing, "media section '\(section.kind)' has no c= line and the session has none",
                        line: line.number)
                }
                description.media.append(section)
            }
            return description
        }

        private mutating func expect(_ type: Character, _ message: String) throws(SDPError) -> Line {
            guard position < lines.count else { throw SDPError(.missing, message) }
            let line = lines[position]
            guard line.type == type else { throw SDPError(.misplaced, message, line: line.number) }
            position += 1
            return line
        }

        /// Reads lines up to the next `m=` (or the end) into `fields` and `attributes`, checking their order.
        private mutating func parseBlock(
            ranks: [Character: Int], singles: Set<Character>, base: Int,
            fields: inout [SessionDescription.Field], attributes: inout [SessionDescription.Attribute]
        ) throws(SDPError) {
            var rank = base
            var previous: Character?
            var seen: Set<Character> = []
            while position < lines.count, lines[position].type != "m" {
                let line = lines[position]
                position += 1
                guard let lineRank = ranks[line.type], lineRank >= rank else {
                    throw SDPError(.misplaced, "'\(line.type)=' is not allowed here (RFC 8866 §5 order)", line: line.number)
                }
                if line.type == "r", previous != "t", previous != "r" {
                    throw SDPError(.misplaced, "r= must follow a t= line", line: line.number)
                }
                guard !singles.contains(line.type) || seen.insert(line.type).inserted else {
                    throw SDPError(.misplaced, "'\(line.type)=' may appear only once here", line: line.number)
                }
                rank = lineRank
                previous = line.type
                if line.type == "a" {
                    attributes.append(try Self.attribute(line))
                } else {
                    try Self.check(line)
                    fields.append(SessionDescription.Field(type: line.type, value: line.value))
                }
            }
        }

        private static func origin(_ line: Line) throws(SDPError) -> SessionDescription.Origin {
            let parts = line.value.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 6, !parts.contains(where: \.isEmpty) else {
                throw SDPError(
                    .badValue, "o= needs six fields: username sess-id sess-version nettype addrtype address",
                    line: line.number)
            }
            guard parts[1].allSatisfy(\.isASCIIDigit), parts[2].allSatisfy(\.isASCIIDigit) else {
                throw SDPError(.badValue, "o= session id and version must be decimal numbers", line: line.number)
            }
            return SessionDescription.Origin(
                username: parts[0], sessionID: parts[1], sessionVersion: parts[2], networkType: parts[3],
                addressType: parts[4], address: parts[5])
        }

        private static func media(_ line: Line) throws(SDPError) -> MediaDescription {
            let parts = line.value.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 4, !parts.contains(where: \.isEmpty) else {
                throw SDPError(.badValue, "m= needs <media> <port> <proto> <fmt> ...", line: line.number)
            }
            guard parts[0].allSatisfy(\.isTokenCharacter) else {
                throw SDPError(.badValue, "m= media '\(parts[0])' is not a token", line: line.number)
            }
            let portParts = parts[1].split(separator: "/", omittingEmptySubsequences: false)
            guard portParts.count <= 2, let port = UInt16(portParts[0]), portParts[0].allSatisfy(\.isASCIIDigit) else {
                throw SDPError(.badValue, "m= port '\(parts[1])' is not a port number (0 to 65535)", line: line.number)
            }
            var count: Int?
            if portParts.count == 2 {
                guard let n = Int(portParts[1]), n > 0 else {
                    throw SDPError(.badValue, "m= port count '\(portParts[1])' must be a positive number", line: line.number)
                }
                count = n
            }
            guard parts[2].allSatisfy({ $0.isTokenCharacter || $0 == "/" }) else {
                throw SDPError(.badValue, "m= proto '\(parts[2])' is malformed", line: line.number)
            }
            return MediaDescription(
                kind: parts[0], port: port, portCount: count, proto: parts[2], formats: Array(parts[3...]))
        }

        private static func attribute(_ line: Line) throws(SDPError) -> SessionDescription.Attribute {
            let name: Substring
            let value: Substring?
            if let colon = line.value.firstIndex(of: ":") {
                name = line.value[..<colon]
                value = line.value[line.value.index(after: colon)...]
            } else {
                name = line.value[...]
                value = nil
            }
            guard !name.isEmpty, name.allSatisfy(\.isTokenCharacter) else {
                throw SDPError(.badValue, "a= needs an attribute name (a token), got '\(name.prefix(40))'", line: line.number)
            }
            return SessionDescription.Attribute(String(name), value.map(String.init))
        }

        /// The form of the lines the camera keeps without interpreting them.
        private static func check(_ line: Line) throws(SDPError) {
            let parts = line.value.split(separator: " ", omittingEmptySubsequences: false)
            switch line.type {
            case "c":
                guard parts.count == 3, !parts.contains(where: \.isEmpty) else {
                    throw SDPError(.badValue, "c= needs <nettype> <addrtype> <address>", line: line.number)
                }
            case "t":
                guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else {
                    throw SDPError(.badValue, "t= needs <start-time> <stop-time> as decimal numbers", line: line.number)
                }
            case "b":
                let pair = line.value.split(separator: ":", omittingEmptySubsequences: false)
                guard pair.count == 2, !pair[0].isEmpty, pair[0].allSatisfy(\.isTokenCharacter), !pair[1].isEmpty,
                    pair[1].allSatisfy(\.isASCIIDigit)
                else {
                    throw SDPError(.badValue, "b= needs <bwtype>:<bandwidth>", line: line.number)
                }
            default:
                guard !line.value.isEmpty else {
                    throw SDPError(.badValue, "'\(line.type)=' must not be empty", line: line.number)
                }
            }
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }

    /// RFC 8866 `token-char`: visible ASCII except `"`, `(`, `)`, `,`, `/`, `:`, `;`, `<`–`@`, `[`–`]`, `{`, `}`.
    var isTokenCharacter: Bool {
        guard let ascii = asciiValue else { return false }
        switch ascii {
        case 0x21, 0x23...0x27, 0x2A...0x2B, 0x2D...0x2E, 0x30...0x39, 0x41...0x5A, 0x5E...0x7E: return true
        default: return false
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
