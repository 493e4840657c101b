/// Whether a trait (or, aggregated, a device type or device) can be reached.
public enum ConnectivityState: String, Hashable, Sendable, Codable, CaseIterable {
    case online, offline, partiallyOnline, unknown
}

/// Where a trait's data comes from.
public enum DataSourceLocality: String, Hashable, Sendable, Codable, CaseIterable {
    case local, remote, peerToPeer, mixed, unspecified
}

/// The connectivity and locality of a trait, or their aggregate over several traits.
public struct SourceConnectivity: Hashable, Sendable, Codable {
    public var connectivityState: ConnectivityState
    public var dataSourceLocality: DataSourceLocality

    public init(connectivityState: ConnectivityState, dataSourceLocality: DataSourceLocality) {
        self.connectivityState = connectivityState
        self.dataSourceLocality = dataSourceLocality
    }

    /// Unknown and unspecified: what a trait shows before anyone reports on it.
    public static let unknown = SourceConnectivity(connectivityState: .unknown, dataSourceLocality: .unspecified)

    /// Aggregates the connectivity of several traits.
    ///
    /// All online gives online, all offline gives offline, a mix of online and offline gives partially online;
    /// unknown parts are ignored unless everything is unknown. Localities that all agree keep their value;
    /// several different ones give mixed.
    public static func aggregate(_ parts: some Sequence<SourceConnectivity>) -> SourceConnectivity {
        var aggregate = Aggregate()
        for part in parts { aggregate.add(part) }
        return aggregate.result
    }

    /// ``aggregate(_:)`` one part at a time, without collecting the parts: a hub encoding a snapshot
    /// aggregates every device's traits, and building arrays and sets for it was a tenth of that work.
    public struct Aggregate: Sendable {
        private var state: ConnectivityState?
        private var statesDiffer = false
        private var locality: DataSourceLocality?
        private var localitiesDiffer = false

        /// No parts yet: the result is ``SourceConnectivity/unknown``.
        public init() {}

        /// Adds one trait's connectivity.
        public mutating func add(_ part: SourceConnectivity) {
            add(part.connectivityState, part.dataSourceLocality)
        }

        /// Adds one trait's connectivity, given as its two fields.
        public mutating func add(_ partState: ConnectivityState, _ partLocality: DataSourceLocality) {
            if partState != .unknown {
                if let state { statesDiffer = statesDiffer || state != partState } else { state = partState }
            }
            if partLocality != .unspecified {
                if let locality {
                    localitiesDiffer = localitiesDiffer || locality != partLocality
                } else {
                    locality = partLocality
                }
            }
        }

        /// The aggregate of the parts added so far.
        public var result: SourceConnectivity {
            SourceConnectivity(
                connectivityState: statesDiffer ? .partiallyOnline : state ?? .unknown,
                dataSourceLocality: localitiesDiffer ? .mixed : locality ?? .unspecified)
        }
    }
}
