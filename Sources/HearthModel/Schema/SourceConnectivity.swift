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
        let parts = Array(parts)
        let states = Set(parts.map(\.connectivityState)).subtracting([.unknown])
        let state: ConnectivityState
        if states.isEmpty {
            state = .unknown
        } else if states.count == 1, let only = states.first {
            state = only
        } else {
            state = .partiallyOnline
        }
        let localities = Set(parts.map(\.dataSourceLocality)).subtracting([.unspecified])
        let locality: DataSourceLocality
        if localities.isEmpty {
            locality = .unspecified
        } else if localities.count == 1, let only = localities.first {
            locality = only
        } else {
            locality = .mixed
        }
        return SourceConnectivity(connectivityState: state, dataSourceLocality: locality)
    }
}
