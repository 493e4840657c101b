/// The fuzzer's bytes read as a sequence of choices: numbers, lengths and byte runs taken from the front.
///
/// Reading past the end yields zeros and empty runs, never a trap, so every input is a valid program for a
/// target and libFuzzer's mutations of one choice leave the others in place.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The bytes of one libFuzzer call.
    public init(start: UnsafeRawPointer, count: Int) {
        self.bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// Whether every byte has been taken.
    public var isEmpty: Bool { position >= bytes.count }

    /// Bytes not yet taken.
    public var remaining: Int { max(0, bytes.count - position) }

    /// One byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A little-endian 16-bit number.
    public mutating func uint16() -> UInt16 {
        UInt16(byte()) | UInt16(byte()) << 8
    }

    /// A little-endian 32-bit number.
    public mutating func uint32() -> UInt32 {
        UInt32(uint16()) | UInt32(uint16()) << 16
    }

    /// A choice among `count` options (0 when `count` is 0).
    public mutating func choice(_ count: Int) -> Int {
        count <= 0 ? 0 : Int(byte()) % count
    }

    /// Whether the next byte is odd.
    public mutating func flag() -> Bool { byte() & 1 == 1 }

    /// Up to `count` bytes (fewer at the end).
    public mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let end = min(bytes.count, position + max(0, count))
        defer { position = end }
        return bytes[min(position, end)..<end]
    }

    /// A run whose length is the next byte.
    public mutating func shortRun() -> ArraySlice<UInt8> { take(Int(byte())) }

    /// A UTF-8 string (invalid sequences repaired) whose length is the next byte.
    public mutating func shortString() -> String { String(decoding: shortRun(), as: UTF8.self) }

    /// Everything not yet taken.
    public mutating func rest() -> ArraySlice<UInt8> { take(remaining) }
}
