/// The two bytes in front of a connection input of `FuzzWireFraming` (after them come the peer's bytes),
/// spelled once for the target that reads them and the seed writer that writes them.
///
/// Selector: bits 0–2 the mode (0…5 a connection), bit 3 puts the client preface in front of the peer's
/// bytes, bit 4 uses small limits, bits 5–7 index ``readSizes``. Time byte: bits 0–1 how far the clock
/// moves at the end (none, 1 s, 31 s, 10 min), bit 2 a graceful shutdown after that.
public enum ConnectionInput {
    /// The HTTP/2 client connection preface.
    public static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// Read sizes: the whole input at once, pieces of these sizes, or (0) each read's length taken from the
    /// byte before it.
    public static let readSizes = [Int.max, 1, 3, 9, 64, 512, 4096, 0]

    /// The selector and time bytes for these choices.
    public static func head(
        readSize: Int = .max, smallLimits: Bool = false, prependPreface: Bool = false, advance: UInt8 = 0
    ) -> [UInt8] {
        var selector = UInt8(readSizes.firstIndex(of: readSize)!) << 5
        if smallLimits { selector |= 0x10 }
        if prependPreface { selector |= 0x08 }
        return [selector, advance]
    }
}
