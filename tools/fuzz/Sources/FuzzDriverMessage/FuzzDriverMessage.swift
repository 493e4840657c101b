import FuzzSupport
import HearthProto
import SwiftProtobuf

/// libFuzzer's entry: the input is a driver's stream, `Hearth_V1_DriverMessage`s each behind a 16-bit
/// little-endian length, applied in order to a real ``HubEngine`` as the hub's driver service applies them
/// (``DriverStreamFuzz``). A message that does not decode is skipped, as the hub's stream would end there.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDriverMessage(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = FuzzInput(start: start, count: count)
    var messages: [Hearth_V1_DriverMessage] = []
    while !input.isEmpty, messages.count < 16 {
        let length = Int(input.uint16())
        let bytes = Array(input.take(length))
        if let message = try? Hearth_V1_DriverMessage(serializedBytes: bytes, options: .hub) { messages.append(message) }
    }
    DriverStreamFuzz.shared.apply(messages)
    return 0
}
