import HearthModel

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

    /// Finishes the response: field 2 (revision), field 3 (synced), field 5 (epoch), field 6 (how many
    /// devices the snapshot this response starts will hold; 0 is not written).
    consuming func finished(
        revision: UInt64, synced: Bool = false, epoch: String? = nil, snapshotDevices: UInt64 = 0
    ) -> [UInt8] {
        var out = bytes
        // Revision 0 is written too: it tells the reader this response is not a resume point.
        ProtoBytes.appendKey(2, ProtoBytes.varint, to: &out)
        ProtoBytes.appendVarint(revision, to: &out)
        ProtoBytes.appendVarintField(3, synced ? 1 : 0, to: &out)
        ProtoBytes.appendStringField(5, epoch ?? "", to: &out)
        ProtoBytes.appendVarintField(6, snapshotDevices, to: &out)
        return out
    }
}
