import HearthSDK

/// Which devices of a `batched()` emission are new or changed since the last one: what a `batched` load
/// client measures.
///
/// The SDK updates the set it last emitted in place, so consecutive emissions iterate in nearly the same
/// order, and a device that did not change is the very value emitted before (the same shared storage). The
/// devices are therefore compared position by position with the last emission by the bits of that storage
/// reference: no device object is touched, so a walk of 10,000 unchanged devices is a walk of two arrays of
/// pointers. Comparing the values themselves retained and released every device of every emission, a
/// cache miss apiece: 37 % of the process holding the `building` mix at 5,000 reports/s, where the five
/// `batched` clients then ran back to back and starved the other fifteen. Only a device whose bits differ
/// is compared by value with its last emitted value, found by id.
struct BatchDiff {
    /// The last emission in its iteration order. Holding these values keeps their storage alive, so no new
    /// device can reuse an address that `order` holds: equal bits are the same, unchanged, device.
    private var order: [HomeDevice] = []
    /// Every device seen, by id, as last emitted.
    private var byID: [String: HomeDevice] = [:]

    /// The devices of `set` that are new or differ from their last emitted value; remembers `set`. Only a
    /// device that differs from the one at its position last time is written.
    mutating func changed(in set: Set<HomeDevice>) -> [HomeDevice] {
        var changed: [HomeDevice] = []
        let aligned = order.count == set.count
        if !aligned { order = Array(set) }
        var position = 0
        for device in set {
            defer { position += 1 }
            if aligned {
                let same = order.withUnsafeBufferPointer { Self.bits($0[position]) == Self.bits(device) }
                if same { continue }
                order[position] = device
            }
            if let last = byID[device.id], last == device { continue }
            byID[device.id] = device
            changed.append(device)
        }
        return changed
    }

    /// The address of a device's shared storage: a `HomeDevice` is that one reference (the size check of
    /// `unsafeBitCast` traps should it ever hold more).
    @inline(__always)
    private static func bits(_ device: HomeDevice) -> UInt { unsafeBitCast(device, to: UInt.self) }
}
