import CZlib
internal import NIOCore

/// gzip and deflate through the system's zlib. The only code that touches a `z_stream`.
///
/// Decompression is bounded: output grows by doubling up to one byte over the limit and stops there, so a
/// small message that inflates to gigabytes (a decompression bomb) costs at most about twice the limit in
/// memory before it is refused. A stream that ends early, carries bytes after its end or fails its checksum
/// is corrupt.
enum Zlib {
    enum Failure: Error, Equatable {
        /// The message inflates to more than the limit.
        case tooLarge(limit: Int)
        /// The bytes are not a complete stream of the encoding.
        case corrupt(String)
        /// zlib could not run (out of memory, version mismatch).
        case unavailable(String)
    }

    /// Compresses `bytes` into one complete stream of `encoding`.
    static func compress(_ bytes: [UInt8], encoding: MessageEncoding) throws(Failure) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        // zlib remembers the stream's address; it must not move between calls, hence the allocation.
        let rc = deflateInit2_(
            stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, encoding.zlibWindowBits, 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw .unavailable("deflateInit2 failed (\(rc))") }
        defer { deflateEnd(stream) }
        let bound = Int(deflateBound(stream, UInt(bytes.count)))
        var result: Int32 = Z_OK
        let output = [UInt8](unsafeUninitializedCapacity: bound) { out, count in
            bytes.withUnsafeBufferPointer { input in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = UInt32(input.count)
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = UInt32(out.count)
                result = deflate(stream, Z_FINISH)
                count = out.count - Int(stream.pointee.avail_out)
            }
        }
        // With deflateBound's room, one Z_FINISH call always ends the stream.
        guard result == Z_STREAM_END else { throw .unavailable("deflate did not finish (\(result))") }
        return output
    }

    /// Decompresses one complete stream of `encoding`.
    /// - Throws: ``Failure/tooLarge(limit:)`` past `limit` bytes of output, ``Failure/corrupt(_:)`` for bytes
    ///   that are not one whole stream.
    static func decompress(_ input: ByteBuffer, encoding: MessageEncoding, limit: Int) throws(Failure) -> ByteBuffer {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        let rc = inflateInit2_(stream, encoding.zlibWindowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw .unavailable("inflateInit2 failed (\(rc))") }
        defer { inflateEnd(stream) }

        let ceiling = limit == .max ? limit : limit + 1
        var output = ByteBufferAllocator().buffer(capacity: min(ceiling, max(1024, input.readableBytes * 4)))
        let outcome: Result<Void, Failure> = input.withUnsafeReadableBytes { source in
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: source.baseAddress?.assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = UInt32(source.count)
            while true {
                if output.readableBytes > limit { return .failure(.tooLarge(limit: limit)) }
                if output.writableBytes == 0 {
                    output.reserveCapacity(min(ceiling, output.capacity * 2))
                }
                let (rc, written) = output.withUnsafeMutableWritableBytes { out -> (Int32, Int) in
                    stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    stream.pointee.avail_out = UInt32(out.count)
                    let rc = inflate(stream, Z_NO_FLUSH)
                    return (rc, out.count - Int(stream.pointee.avail_out))
                }
                output.moveWriterIndex(forwardBy: written)
                switch rc {
                case Z_STREAM_END:
                    if output.readableBytes > limit { return .failure(.tooLarge(limit: limit)) }
                    guard stream.pointee.avail_in == 0 else {
                        return .failure(.corrupt("\(stream.pointee.avail_in) bytes after the end of the \(encoding) stream"))
                    }
                    return .success(())
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.pointee.avail_in > 0:
                    continue  // no room for output: the loop grows the buffer
                case Z_BUF_ERROR:
                    return .failure(.corrupt("the \(encoding) stream ends early"))
                case Z_DATA_ERROR, Z_NEED_DICT:
                    return .failure(.corrupt("invalid \(encoding) data"))
                default:
                    return .failure(.unavailable("inflate failed (\(rc))"))
                }
            }
        }
        try outcome.get()
        return output
    }
}
