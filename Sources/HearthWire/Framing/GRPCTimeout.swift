/// The `grpc-timeout` header: at most 8 ASCII digits and a unit
/// (`H`, `M`, `S`, `m`, `u`, `n`).
struct GRPCTimeout: Hashable, Sendable {
    /// The timeout in nanoseconds.
    var nanoseconds: Int64

    init(nanoseconds: Int64) {
        self.nanoseconds = max(0, nanoseconds)
    }

    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let ns = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self.init(nanoseconds: ns.overflow ? .max : ns.partialValue + attoseconds / 1_000_000_000)
    }

    /// Parses a header value; nil when it is malformed.
    init?(header: String) {
        let utf8 = Array(header.utf8)
        guard utf8.count >= 2, utf8.count <= 9 else { return nil }
        var amount: Int64 = 0
        for digit in utf8.dropLast() {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            amount = amount * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        let multiplier: Int64
        switch utf8.last! {
        case UInt8(ascii: "H"): multiplier = 3_600_000_000_000
        case UInt8(ascii: "M"): multiplier = 60_000_000_000
        case UInt8(ascii: "S"): multiplier = 1_000_000_000
        case UInt8(ascii: "m"): multiplier = 1_000_000
        case UInt8(ascii: "u"): multiplier = 1_000
        case UInt8(ascii: "n"): multiplier = 1
        default: return nil
        }
        let product = amount.multipliedReportingOverflow(by: multiplier)
        self.init(nanoseconds: product.overflow ? .max : product.partialValue)
    }

    /// The header value: the finest unit whose amount fits in 8 digits,
    /// rounded up so the peer never sees a shorter deadline than ours.
    var headerValue: String {
        let units: [(Int64, Character)] = [
            (1, "n"), (1_000, "u"), (1_000_000, "m"), (1_000_000_000, "S"), (60_000_000_000, "M"),
            (3_600_000_000_000, "H"),
        ]
        for (size, unit) in units {
            let amount = (nanoseconds + size - 1) / size
            if amount <= 99_999_999 { return "\(amount)\(unit)" }
        }
        return "99999999H"
    }

    var duration: Duration { .nanoseconds(nanoseconds) }
}
