public import HearthTypes

/// The push transports (recording uploads) of one camera, as Matter's Push AV Stream Transport keeps them.
///
/// A value whose events are `mutating` functions returning the trait events to emit; time is an argument.
/// A connection is `active` (it may push: the camera records) or `inactive`. An active connection pushes
/// while its trigger holds: always for `continuous`, for a while after ``trigger(_:reason:timeControl:now:)``
/// otherwise (motion is not simulated). The camera records while any connection is active.
public struct PushTransports: Sendable {
    public typealias Trait = Google.PushAvStreamTransportTrait
    public typealias Connection = Trait.TransportConfigurationStruct
    public typealias Options = Trait.TransportOptionsStruct

    /// An event of the trait to emit after a change.
    public enum Event: Sendable, Hashable {
        case begin(Trait.PushTransportBeginEvent)
        case end(Trait.PushTransportEndEvent)
    }

    /// The connections by ascending id; what `currentConnections` reports.
    public private(set) var connections: [Connection]
    /// How many connections the camera keeps at most.
    public var limit: Int
    /// Pushing connections and when they stop (nil: while active, for continuous triggers).
    private var pushing: [UInt16: ContinuousClock.Instant?] = [:]

    /// Connections as configured at start; continuous active ones push from the start.
    public init(connections: [Connection], limit: Int = 4) {
        self.connections = connections.sorted { $0.connectionID < $1.connectionID }
        self.limit = limit
        for connection in self.connections
        where connection.transportStatus == .active && connection.transportOptions?.triggerOptions.triggerType == .continuous {
            pushing[connection.connectionID] = .some(nil)
        }
    }

    /// Whether the camera records: some connection is active.
    public var isRecording: Bool { connections.contains { $0.transportStatus == .active } }

    /// Whether a connection is pushing now.
    public func isPushing(_ id: UInt16) -> Bool { pushing[id] != nil }

    /// The connection `id`, or all of them for nil.
    /// - Throws: NOT_FOUND for an unknown id.
    public func find(_ id: UInt16?) throws(CameraError) -> [Connection] {
        guard let id else { return connections }
        return [connections[try index(id)]]
    }

    /// Adds an inactive connection with `options` and the next free id.
    /// - Throws: INVALID_ARGUMENT for options the camera cannot use; RESOURCE_EXHAUSTED at ``limit``.
    public mutating func allocate(_ options: Options) throws(CameraError) -> Connection {
        try Self.check(options)
        guard connections.count < limit else {
            throw CameraError(.resourceExhausted, "the camera keeps at most \(limit) push connections")
        }
        let id = (connections.map(\.connectionID).max() ?? 0) + 1
        let connection = Connection(connectionID: id, transportStatus: .inactive, transportOptions: options)
        connections.append(connection)
        return connection
    }

    /// Removes a connection (ending its push).
    /// - Throws: NOT_FOUND for an unknown id.
    public mutating func deallocate(_ id: UInt16) throws(CameraError) -> [Event] {
        let index = try index(id)
        connections.remove(at: index)
        return end(id)
    }

    /// Replaces a connection's options with a new set. An active connection made continuous starts
    /// pushing at once, as ``setStatus(_:id:)`` would start it.
    ///
    /// The new set may leave out a sub-structure the camera's rules require (`motionTimeControl` for a
    /// motion trigger, `cmafContainerOptions` for a CMAF container): absent means "keep the connection's
    /// current one", so that code which rebuilds the options to change one field (the Home APIs' camera
    /// guide does, for wake-up sensitivity and maximum event length) is not refused. A sub-structure that
    /// is present is used as given and still checked.
    /// - Returns: the push that began, if any.
    /// - Throws: NOT_FOUND for an unknown id; INVALID_ARGUMENT for options the camera cannot use (a required
    ///   sub-structure absent from both the new and the current options included); FAILED_PRECONDITION while
    ///   the connection pushes (Matter answers BUSY).
    public mutating func modify(_ id: UInt16, options: Options) throws(CameraError) -> [Event] {
        let index = try index(id)
        let options = Self.keepingRequired(options, from: connections[index].transportOptions)
        try Self.check(options)
        guard pushing[id] == nil else {
            throw CameraError(.failedPrecondition, "connection \(id) is pushing; set it inactive before changing it")
        }
        connections[index].transportOptions = options
        guard connections[index].transportStatus == .active, options.triggerOptions.triggerType == .continuous else {
            return []
        }
        pushing[id] = .some(nil)
        return [.begin(.init(connectionID: id, triggerType: .continuous))]
    }

    /// Sets the status of connection `id`, or of every connection for nil.
    /// - Throws: NOT_FOUND for an unknown id.
    public mutating func setStatus(_ status: Trait.TransportStatusEnum, id: UInt16?) throws(CameraError) -> [Event] {
        let targets = id == nil ? Array(connections.indices) : [try index(id!)]
        var events: [Event] = []
        for index in targets where connections[index].transportStatus != status {
            connections[index].transportStatus = status
            let connectionID = connections[index].connectionID
            if status == .inactive {
                events += end(connectionID)
            } else if connections[index].transportOptions?.triggerOptions.triggerType == .continuous {
                pushing[connectionID] = .some(nil)
                events.append(.begin(.init(connectionID: connectionID, triggerType: .continuous)))
            }
        }
        return events
    }

    /// Makes an active, non-continuous connection push now, for the time control's initial duration (the
    /// options' motion time control, else 10 s); a push already running is lengthened.
    /// - Throws: NOT_FOUND for an unknown id; FAILED_PRECONDITION for an inactive or continuous connection.
    public mutating func trigger(
        _ id: UInt16, reason: Trait.TriggerActivationReasonEnum,
        timeControl: Trait.TransportMotionTriggerTimeControlStruct?, now: ContinuousClock.Instant
    ) throws(CameraError) -> [Event] {
        let connection = connections[try index(id)]
        guard connection.transportStatus == .active else {
            throw CameraError(.failedPrecondition, "connection \(id) is inactive")
        }
        let trigger = connection.transportOptions?.triggerOptions
        guard trigger?.triggerType != .continuous else {
            throw CameraError(.failedPrecondition, "connection \(id) pushes continuously already")
        }
        let seconds = timeControl?.initialDuration ?? trigger?.motionTimeControl?.initialDuration ?? 10
        let until = now + .seconds(Int(seconds))
        if let running = pushing[id] {
            if let end = running, end < until { pushing[id] = .some(until) }
            return []
        }
        pushing[id] = .some(until)
        return [.begin(.init(connectionID: id, triggerType: .command, activationReason: reason))]
    }

    /// Ends the triggered pushes whose time is up by `now`.
    public mutating func endPushes(now: ContinuousClock.Instant) -> [Event] {
        let due = pushing.compactMap { id, until in until.flatMap { $0 <= now ? id : nil } }.sorted()
        return due.flatMap { end($0) }
    }

    private mutating func end(_ id: UInt16) -> [Event] {
        guard pushing.removeValue(forKey: id) != nil else { return [] }
        return [.end(.init(connectionID: id))]
    }

    private func index(_ id: UInt16) throws(CameraError) -> Int {
        guard let index = connections.firstIndex(where: { $0.connectionID == id }) else {
            throw CameraError(.notFound, "no push connection \(id)")
        }
        return index
    }

    /// `options` with the sub-structures that ``check(_:)`` requires taken from `current` where `options`
    /// leaves them out.
    static func keepingRequired(_ options: Options, from current: Options?) -> Options {
        var options = options
        if options.triggerOptions.triggerType == .motion, options.triggerOptions.motionTimeControl == nil {
            options.triggerOptions.motionTimeControl = current?.triggerOptions.motionTimeControl
        }
        if options.containerOptions.containerType == .cmaf, options.containerOptions.cmafContainerOptions == nil {
            options.containerOptions.cmafContainerOptions = current?.containerOptions.cmafContainerOptions
        }
        return options
    }

    /// The camera's own rules, beyond what the catalog (and so the hub) checks.
    static func check(_ options: Options) throws(CameraError) {
        guard options.url.lowercased().hasPrefix("https://") else {
            throw CameraError(.invalidArgument, "the ingest url must be https://, got '\(options.url)'")
        }
        if options.triggerOptions.triggerType == .motion, options.triggerOptions.motionTimeControl == nil {
            throw CameraError(.invalidArgument, "a motion trigger needs motionTimeControl")
        }
        if options.containerOptions.containerType == .cmaf {
            guard let cmaf = options.containerOptions.cmafContainerOptions else {
                throw CameraError(.invalidArgument, "a CMAF container needs cmafContainerOptions")
            }
            guard Int(cmaf.chunkDuration) * 2 <= Int(cmaf.segmentDuration) else {
                throw CameraError(.invalidArgument, "chunkDuration must be at most half of segmentDuration")
            }
        }
    }
}
