import HearthProto

/// A driver as the hub sees it (a Hearth addition to the Home APIs, for tools).
public struct DriverInfo: Sendable, Hashable {
    /// The state of a supervised driver's process.
    public enum ProcessState: String, Sendable, Hashable {
        case unsupervised, starting, running, backingOff, failed, stopped
    }

    /// The driver's id (the prefix of its devices' ids).
    public let id: String
    /// Whether it has a session with the hub now.
    public let isConnected: Bool
    /// Its process's state when the hub supervises it.
    public let processState: ProcessState
    /// Its process id while it runs (0 otherwise).
    public let pid: Int32
    /// Restarts after crashes since the hub started.
    public let restarts: Int
    /// How its last process ended.
    public let lastExit: String
    /// Why it is failed, or what went wrong last.
    public let message: String
    /// How many devices it has.
    public let devices: Int

    init(_ proto: Hearth_V1_DriverStatus) {
        id = proto.driverID
        isConnected = proto.connected
        processState =
            switch proto.processState {
            case .starting: .starting
            case .running: .running
            case .backingOff: .backingOff
            case .failed: .failed
            case .stopped: .stopped
            default: .unsupervised
            }
        pid = proto.pid
        restarts = Int(proto.restarts)
        lastExit = proto.lastExit
        message = proto.message
        devices = Int(proto.devices)
    }
}

extension Home {
    /// The drivers the hub knows, sorted by id.
    public func drivers() async throws(HomeError) -> [DriverInfo] {
        try await call(HomeMethods.listDrivers, .init()).drivers.map(DriverInfo.init)
    }

    /// Restarts a driver the hub supervises (admin only), also one marked failed.
    public func restartDriver(id: String) async throws(HomeError) -> DriverInfo {
        var request = Hearth_V1_RestartDriverRequest()
        request.driverID = id
        return DriverInfo(try await call(HomeMethods.restartDriver, request))
    }
}
