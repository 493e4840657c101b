import FuzzSupport
import NIOCore
import WireHarness

@testable import HearthWire

/// ``ServerStreamStateMachine`` alone, fed a sequence of events read from the input:
///
/// - the limits (two 16-bit numbers), then events until the input ends, each a byte whose low two bits say
///   which: a header field (names and values mostly from tables of what gRPC sends, sometimes free text),
///   the end of a header block (with or without END_STREAM), a DATA chunk, or END_STREAM on DATA.
///
/// Checked: no message handed to a call is larger than the receive limit, and the messages never hold more
/// bytes than DATA brought in after the head was dispatched.
enum StreamMachineFuzz {
    static func run(_ input: inout FuzzInput) {
        let limits = ServerStreamStateMachine.Limits(
            maxHeaderListSize: Int(input.uint16()), maxReceiveMessageSize: Int(input.uint16()))
        var machine = ServerStreamStateMachine(limits: limits)
        var open = false
        var dataSinceOpen = 0
        var delivered = 0
        var events = 0
        while !input.isEmpty, events < 4096 {
            events += 1
            let event = input.byte()
            switch event & 0x03 {
            case 0:
                let name = event & 0x04 != 0 ? input.shortString() : WireVocabulary.names[input.choice(WireVocabulary.names.count)]
                let value = event & 0x08 != 0 ? input.shortString() : WireVocabulary.values[input.choice(WireVocabulary.values.count)]
                machine.receiveHeader(name: name, value: value)
            case 1:
                let endStream = event & 0x04 != 0
                switch machine.receiveHeadersComplete(endStream: endStream) {
                case .dispatch(let head):
                    fuzzCheck(head.path.hasPrefix("/"), "dispatched a head with path \(head.path)")
                    open = !endStream
                default:
                    break
                }
            case 2:
                let chunk = Array(input.shortRun())
                if open { dataSinceOpen += chunk.count }
                let outcome = chunk.withUnsafeBytes { machine.receiveData($0) }
                if case .deliver(let messages) = outcome {
                    for message in messages {
                        fuzzCheck(
                            message.bytes.readableBytes <= limits.maxReceiveMessageSize,
                            "delivered a message of \(message.bytes.readableBytes) bytes over the limit of \(limits.maxReceiveMessageSize)")
                        // A decompressed message may be larger than what travelled; only its prefix is counted.
                        delivered += message.compressed ? 5 : message.bytes.readableBytes + 5
                    }
                    fuzzCheck(delivered <= dataSinceOpen, "delivered \(delivered) framed bytes out of \(dataSinceOpen) received")
                }
            default:
                _ = machine.receiveEndStream()
            }
        }
    }
}
