import FuzzSupport

/// libFuzzer's entry: the first byte picks what the rest feeds.
///
/// - 0…5 (three in four inputs): a server connection fed the rest as raw bytes from its peer
///   (``ConnectionFuzz``; the other bits of the byte pick chunking, limits and the client preface);
/// - 6: the stream state machine fed header fields, DATA chunks and ends (``StreamMachineFuzz``);
/// - 7: the message deframer fed chunks, checked against a plain reading of the same bytes
///   (``DeframerFuzz``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireFraming(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start: start, count: count)
    let selector = input.byte()
    switch selector & 0x07 {
    case 6: StreamMachineFuzz.run(&input)
    case 7: DeframerFuzz.run(&input)
    default: ConnectionFuzz.run(selector: selector, &input)
    }
    return 0
}
