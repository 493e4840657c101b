public import HearthModel

/// A mistake in how a driver uses HearthDriverKit, or the hub refusing the driver for good.
///
/// Handlers that refuse a command throw HearthWire's `RPCError` instead (its code and message reach the
/// caller); any other error from a handler reaches the caller as INTERNAL with its description.
public enum DriverError: Error, Hashable, CustomStringConvertible {
    /// No device with this id was added.
    case unknownDevice(String)
    /// The device has no such trait (on that endpoint, when one was given).
    case unknownTrait(device: String, trait: TraitID, endpoint: UInt32?)
    /// The hub refused the driver's token or identity (UNAUTHENTICATED, PERMISSION_DENIED): retrying cannot help.
    case refused(String)
    /// Another session of the same driver took over (ABORTED): another copy of this driver runs.
    case replaced(String)
    /// The configuration is incomplete or malformed.
    case configuration(String)

    public var description: String {
        switch self {
        case .unknownDevice(let id): "no device '\(id)' was added to this driver"
        case .unknownTrait(let device, let trait, let endpoint):
            "device '\(device)' has no trait \(trait)\(endpoint.map { " on endpoint \($0)" } ?? "")"
        case .refused(let message): "the hub refused this driver: \(message)"
        case .replaced(let message): "another session of this driver took over: \(message)"
        case .configuration(let message): "driver configuration: \(message)"
        }
    }
}
