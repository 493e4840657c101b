import Synchronization

/// The encoding of one stream's outbound messages, shared by its writer (task side), its server context and
/// the loop that sends the response headers. It can change until it is fixed: by the first message written or
/// by the headers going out, whichever comes first; after that it stays.
///
/// One atomic word, since every write asks: the encoding's code (0 none, 1 gzip, 2 deflate) and a fixed bit.
final class OutboundCompression: Sendable {
    /// The encodings this stream may use: those we enable that the peer accepts.
    let allowed: [MessageEncoding]
    private let word: Atomic<Int>
    private static let fixedBit = 4

    /// - Parameters:
    ///   - encoding: the encoding to start with (nil: none).
    ///   - allowed: the encodings ``set(_:)`` may choose.
    init(encoding: MessageEncoding?, allowed: [MessageEncoding]) {
        self.allowed = allowed
        self.word = Atomic(Self.code(encoding))
    }

    /// No compression and none allowed: shared, since nothing about it can change.
    static let none = OutboundCompression(encoding: nil, allowed: [])

    private static func code(_ encoding: MessageEncoding?) -> Int {
        switch encoding {
        case nil: 0
        case .gzip?: 1
        default: 2
        }
    }

    private static func encoding(_ word: Int) -> MessageEncoding? {
        switch word & 3 {
        case 1: .gzip
        case 2: .deflate
        default: nil
        }
    }

    /// The encoding now.
    var current: MessageEncoding? { Self.encoding(word.load(ordering: .acquiring)) }

    /// Chooses the encoding.
    /// - Returns: false (and changes nothing) when `encoding` is not allowed or the encoding is fixed already.
    func set(_ encoding: MessageEncoding?) -> Bool {
        if let encoding, !allowed.contains(encoding) { return false }
        if allowed.isEmpty { return encoding == nil && current == nil }
        while true {
            let old = word.load(ordering: .acquiring)
            guard old & Self.fixedBit == 0 else { return false }
            if word.compareExchange(expected: old, desired: Self.code(encoding), ordering: .acquiringAndReleasing).exchanged {
                return true
            }
        }
    }

    /// Fixes the encoding and returns it.
    func fix() -> MessageEncoding? {
        if allowed.isEmpty { return current }
        while true {
            let old = word.load(ordering: .acquiring)
            if old & Self.fixedBit != 0 { return Self.encoding(old) }
            if word.compareExchange(expected: old, desired: old | Self.fixedBit, ordering: .acquiringAndReleasing).exchanged {
                return Self.encoding(old)
            }
        }
    }
}
