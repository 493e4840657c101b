/// The body of one gRPC-Web response as it is produced: the call's framed messages, then the trailer frame, in
/// the call's format (base64 for `grpc-web-text`). Pure; the HTTP/2 stream and the HTTP/1.1 connection both
/// drain it.
struct GRPCWebResponseBody {
    let format: GRPCWebFormat
    private var encoder = Base64Stream.Encoder()
    private var pending: [UInt8] = []
    private var sent = 0
    /// The trailer frame has been appended: nothing more will come.
    private(set) var ended = false

    init(format: GRPCWebFormat) { self.format = format }

    /// Appends framed messages.
    mutating func append(_ bytes: some Collection<UInt8>) {
        guard !ended, !bytes.isEmpty else { return }
        compact()
        switch format {
        case .binary: pending.append(contentsOf: bytes)
        case .text: pending.append(contentsOf: encoder.encode(bytes))
        }
    }

    /// Appends the trailer frame (and, in text, the padding of the last group): the end of the body.
    mutating func end(_ status: Status, trailers: Metadata = [:]) {
        guard !ended else { return }
        compact()
        let frame = GRPCWebFormat.trailerFrame(status, trailers: trailers)
        switch format {
        case .binary: pending.append(contentsOf: frame)
        case .text:
            pending.append(contentsOf: encoder.encode(frame))
            pending.append(contentsOf: encoder.finish())
        }
        ended = true
    }

    /// Bytes ready to send.
    var readableBytes: Int { pending.count - sent }

    /// Whether everything, the trailer frame included, has been taken.
    var isFinished: Bool { ended && readableBytes == 0 }

    /// Copies up to `destination.count` ready bytes.
    /// - Returns: the number copied.
    mutating func read(into destination: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(destination.count, readableBytes)
        guard count > 0 else { return 0 }
        pending.withUnsafeBytes { source in
            destination.baseAddress!.copyMemory(from: source.baseAddress! + sent, byteCount: count)
        }
        sent += count
        return count
    }

    /// Takes every ready byte.
    mutating func readAll() -> ArraySlice<UInt8> {
        defer { sent = pending.count }
        return pending[sent...]
    }

    private mutating func compact() {
        guard sent > 0 else { return }
        pending.removeFirst(sent)
        sent = 0
    }
}
