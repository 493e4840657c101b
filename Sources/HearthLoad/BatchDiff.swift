import HearthSDK

/// Which devices of a `batched()` emission may be new or changed since the last one: what a `batched` load
/// client reads the probe of. Its ``ProbeTracker`` ignores a probe reading it has already seen, so a device
/// reported here without a change costs one reading and counts nothing.
///
/// The SDK updates the set it last emitted in place, so consecutive emissions iterate in nearly the same
/// order, and a device that did not change is the very value emitted before (the same shared storage). The
/// devices are therefore compared position by position with the last emission by the bits of that storage
/// reference: no device object is touched, so a walk of 10,000 unchanged devices is a walk of two arrays of
/// pointers. Comparing the values themselves retained and released every device of every emission, a
/// cache miss apiece (37 % of the process holding the `building` mix at 5,000 reports/s, where the five
/// `batched` clients then ran back to back and starved the other fifteen), and comparing a changed device
/// with its last value by value decoded every attribute of both.
struct BatchDiff {
    /// The last emission in its iteration order. Holding these values keeps their storage alive, so no new
    /// device can reuse an address that `order` holds: equal bits are the same, unchanged, device.
    private var order: [HomeDevice] = []

    /// The devices of `set` that are not, at their position, the value emitted there last time (all of them
    /// when the set's size changed); remembers `set`.
    mutating func changed(in set: Set<HomeDevice>) -> [HomeDevice] {
        guard order.count == set.count else {
            order = Array(set)
            return order
        }
        var changed: [HomeDevice] = []
        var position = 0
        for device in set {
            defer { position += 1 }
            if Self.bits(order[position]) == Self.bits(device) { continue }  // compiled without a retain
            order[position] = device
            changed.append(device)
        }
        return changed
    }

    /// The address of a device's shared storage: a `HomeDevice` is that one reference (the size check of
    /// `unsafeBitCast` traps should it ever hold more).
    @inline(__always)
    private static func bits(_ device: HomeDevice) -> UInt { unsafeBitCast(device, to: UInt.self) }
}
