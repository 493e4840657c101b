public import HearthModel

/// A structure as the hub holds it.
public struct StructureRecord: Hashable, Sendable {
    public var id: String
    public var name: String
    public var revision: UInt64
}

/// A room as the hub holds it.
public struct RoomRecord: Hashable, Sendable {
    public var id: String
    public var structureID: String
    public var name: String
    public var revision: UInt64
}

/// One trait's state on one device-type instance.
public struct TraitRecord: Hashable, Sendable {
    public var traitID: TraitID
    public var attributes: [AttributeID: Value]
    public var connectivity: ConnectivityState
    public var locality: DataSourceLocality
    /// False while the values are last known from before a restart.
    public var confirmed: Bool
    public var revision: UInt64

    /// A driver's report: `attributes` merged in (newer values win), confirmed, at `revision`.
    mutating func apply(_ attributes: [AttributeID: Value], connectivity: ConnectivityState, revision: UInt64) {
        self.attributes.merge(attributes) { _, new in new }
        self.connectivity = connectivity
        confirmed = true
        self.revision = revision
    }
}

/// One device type a device implements (a Matter endpoint).
public struct TypeInstanceRecord: Hashable, Sendable {
    public var endpoint: UInt32
    public var deviceTypeID: DeviceTypeID
    public var primary: Bool
    /// Sorted by trait id.
    public var traits: [TraitRecord]

    func traitIndex(_ id: TraitID) -> Int? { traits.firstIndex { $0.traitID == id } }
}

/// A device as the hub holds it.
public struct DeviceRecord: Hashable, Sendable {
    /// `<driverID>/<localID>`.
    public var id: String
    public var driverID: String
    public var localID: String
    public var structureID: String?
    public var roomID: String?
    public var name: String
    public var isMatterDevice: Bool
    /// Sorted by endpoint.
    public var types: [TypeInstanceRecord]
    public var revision: UInt64

    /// The hub's id for a driver's device.
    public static func globalID(driver: String, local: String) -> String { "\(driver)/\(local)" }

    /// Connectivity aggregated over all traits.
    public var sourceConnectivity: SourceConnectivity {
        var aggregate = SourceConnectivity.Aggregate()
        for type in types {
            for trait in type.traits { aggregate.add(trait.connectivity, trait.locality) }
        }
        return aggregate.result
    }

    func typeIndex(endpoint: UInt32) -> Int? { types.firstIndex { $0.endpoint == endpoint } }

    /// Sets every trait's connectivity (and, if given, `confirmed`) and stamps what changed with `revision`.
    /// Returns whether anything changed.
    mutating func setAllTraits(connectivity: ConnectivityState, confirmed: Bool?, revision: UInt64) -> Bool {
        var changed = false
        for t in types.indices {
            for i in types[t].traits.indices {
                // Changed in place, and compared on the two fields it sets (not the whole record, whose
                // attribute dictionary a restart would otherwise compare once per trait).
                let trait = types[t].traits[i]
                guard trait.connectivity != connectivity || (confirmed.map { $0 != trait.confirmed } ?? false)
                else { continue }
                types[t].traits[i].connectivity = connectivity
                if let confirmed { types[t].traits[i].confirmed = confirmed }
                types[t].traits[i].revision = revision
                changed = true
            }
        }
        if changed { self.revision = revision }
        return changed
    }

    /// The record with every revision zeroed, to compare content.
    var withoutRevisions: DeviceRecord {
        var copy = self
        copy.revision = 0
        for t in copy.types.indices {
            for i in copy.types[t].traits.indices { copy.types[t].traits[i].revision = 0 }
        }
        return copy
    }

    /// The device-type ids of all instances.
    public var deviceTypeIDs: [UInt32] { types.map(\.deviceTypeID.rawValue) }
}

/// Names are cut at 60 Unicode code points without error.
public enum Names {
    public static let maxCodePoints = 60

    /// `name` cut to at most 60 Unicode scalars.
    public static func cut(_ name: String) -> String {
        let scalars = name.unicodeScalars
        guard scalars.count > maxCodePoints else { return name }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars.prefix(maxCodePoints))
        return String(view)
    }
}
