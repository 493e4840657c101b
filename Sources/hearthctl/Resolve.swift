import Foundation
import HearthSDK

/// Finds objects by id or by name, with clear errors for none or several.
enum Resolve {
    static func device(_ key: String, in devices: Set<HomeDevice>) throws -> HomeDevice {
        try one(key, devices.filter { $0.id == key }, devices.filter { $0.name.caseInsensitiveCompare(key) == .orderedSame }, "device")
    }

    static func room(_ key: String, in rooms: Set<Room>) throws -> Room {
        try one(key, rooms.filter { $0.id == key }, rooms.filter { $0.name.caseInsensitiveCompare(key) == .orderedSame }, "room")
    }

    static func structure(_ key: String?, in structures: Set<Structure>) throws -> Structure {
        guard let key else {
            guard structures.count == 1, let only = structures.first else {
                throw Failure(.invalidArgument, "there are \(structures.count) structures: name one with --structure")
            }
            return only
        }
        return try one(
            key, structures.filter { $0.id == key }, structures.filter { $0.name.caseInsensitiveCompare(key) == .orderedSame },
            "structure")
    }

    private static func one<T: Identifiable>(_ key: String, _ byID: Set<T>, _ byName: Set<T>, _ kind: String) throws -> T
    where T.ID == String {
        if let match = byID.first { return match }
        guard byName.count <= 1 else {
            throw Failure(
                .invalidArgument, "\(byName.count) \(kind)s are named '\(key)': use an id (\(byName.map(\.id).sorted().joined(separator: ", ")))")
        }
        guard let match = byName.first else { throw Failure(.notFound, "no \(kind) '\(key)'") }
        return match
    }

    /// A trait schema by name (`OnOff`, `LevelControl`, `ExampleOrganization.Spinner`…).
    static func trait(_ name: String) throws -> TraitSchema {
        let traits = Catalog.builtin.traits.values
        if let match = traits.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) { return match }
        if let match = traits.first(where: { "\($0.namespace.spelling).\($0.name)".caseInsensitiveCompare(name) == .orderedSame }) {
            return match
        }
        throw Failure(.invalidArgument, "no trait '\(name)' in the catalog (e.g. OnOff, LevelControl, ColorControl)")
    }

    /// `Trait.member` split in two.
    static func member(_ path: String) throws -> (TraitSchema, String) {
        guard let dot = path.lastIndex(of: "."), dot != path.startIndex, path.index(after: dot) != path.endIndex else {
            throw Failure(.invalidArgument, "expected Trait.member, e.g. OnOff.onOff, got '\(path)'")
        }
        return (try trait(String(path[..<dot])), String(path[path.index(after: dot)...]))
    }
}
