import FuzzSupport
import HearthProto
import HearthWire
import NIOCore
import SwiftProtobuf

@testable import HearthHub

/// libFuzzer's entry: the input is a driver's stream, `Hearth_V1_DriverMessage`s each behind a 16-bit
/// little-endian length, read by the hub's own codec for the stream (``InboundDriverMessage``: reports
/// straight into traits, anything else through swift-protobuf) and applied in order to a real ``HubEngine``
/// as the hub's driver service applies them (``DriverStreamFuzz``). A message that does not decode is
/// skipped, as the hub's stream would end there.
///
/// Checked besides: a report the direct reader accepts reads as swift-protobuf reads it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDriverMessage(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start: start, count: count)
    var messages: [InboundDriverMessage] = []
    while !input.isEmpty, messages.count < 16 {
        let length = Int(input.uint16())
        let bytes = Array(input.take(length))
        guard let message = try? InboundDriverMessage.connect.requestCodec.deserialize(ByteBuffer(bytes: bytes)) else {
            continue
        }
        if case .report(let traits) = message { checkDirectReport(traits, bytes) }
        messages.append(message)
    }
    DriverStreamFuzz.shared.apply(messages)
    return 0
}

/// The direct reader's traits against swift-protobuf's reading of the same bytes, compared as encoded reports
/// (a NaN then counts as itself).
func checkDirectReport(_ traits: [ReportedTrait], _ bytes: [UInt8]) {
    guard let decoded = try? Hearth_V1_DriverMessage(serializedBytes: bytes, options: .hub), case .report(let report) = decoded.kind
    else { fatalError("the direct reader accepted a report swift-protobuf refuses: \(bytes)") }
    func encoded(_ traits: [ReportedTrait]) -> [UInt8] {
        var message = Hearth_V1_Report()
        message.traits = traits.map(\.proto)
        return try! message.serializedBytes()
    }
    fuzzCheck(
        encoded(traits) == encoded(report.traits.map(ReportedTrait.init(proto:))),
        "the direct reader read a report otherwise than swift-protobuf")
}
