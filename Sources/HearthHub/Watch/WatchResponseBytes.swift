/// Builds `hearth.v1.WatchResponse` bytes by concatenation: the pre-encoded change fields of ``LogEntry``,
/// then the marks. Protobuf allows a repeated field's elements to be concatenated, so a response costs one
/// copy of bytes that were encoded once for every watcher.
struct WatchResponseBytes {
    private var bytes: [UInt8] = []
    private(set) var changeCount = 0

    var isEmpty: Bool { changeCount == 0 }
    var byteCount: Int { bytes.count }

    mutating func append(framedChange: [UInt8]) {
        bytes.append(contentsOf: framedChange)
        changeCount += 1
    }

    /// Appends `count` framed changes already concatenated.
    mutating func append(framedChanges: [UInt8], count: Int) {
        bytes.append(contentsOf: framedChanges)
        changeCount += count
    }

    /// Finishes the response: field 2 (revision), field 3 (synced), field 5 (epoch).
    consuming func finished(revision: UInt64, synced: Bool = false, epoch: String? = nil) -> [UInt8] {
        var out = bytes
        out.append(0x10)
        Self.appendVarint(revision, to: &out)
        if synced { out.append(contentsOf: [0x18, 0x01]) }
        if let epoch, !epoch.isEmpty {
            out.append(0x2A)
            Self.appendVarint(UInt64(epoch.utf8.count), to: &out)
            out.append(contentsOf: epoch.utf8)
        }
        return out
    }

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }
}
