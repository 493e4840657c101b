public import Foundation
import Logging
import HearthModel

/// What happens when the disk refuses a write (`Docs/Hub.md`, "Storage faults"): a metadata change that
/// could not be committed is refused, taken back out of the graph and never written later; trait state keeps
/// flowing from memory; the fault is shown on `/healthz` and the metrics until a write succeeds again.
extension HubEngine {
    /// What each object pending a metadata commit was before its first pending change: the durable value a
    /// failed commit reverts to. A nil value: the object did not exist.
    struct BeforeImages {
        var structures: [String: StructureRecord?] = [:]
        var rooms: [String: RoomRecord?] = [:]
        var devices: [String: DeviceRecord?] = [:]

        /// Adds `later`'s images of objects not imaged here (an earlier image is the older value).
        mutating func absorb(_ later: BeforeImages) {
            structures.merge(later.structures) { earlier, _ in earlier }
            rooms.merge(later.rooms) { earlier, _ in earlier }
            devices.merge(later.devices) { earlier, _ in earlier }
        }
    }

    /// The two kinds of writes the store takes (`Docs/Hub.md`, "Two paths").
    public enum StoragePath: String, Sendable, CaseIterable {
        /// Durable metadata commits.
        case metadata
        /// Trait-state saves.
        case state
    }

    /// A storage path that is failing now, and since when.
    public struct StorageFault: Sendable, CustomStringConvertible {
        public var path: StoragePath
        public var since: Date
        public var message: String

        public var description: String {
            "\(path.rawValue) writes failing since \(since.formatted(.iso8601)): \(message)"
        }
    }

    // MARK: - Staging metadata changes (the graph changes, the value before is kept)

    func stage(_ structure: StructureRecord) {
        Self.remember(structure.id, graph.structures, in: &metadata.before.structures)
        graph.structures[structure.id] = structure
    }

    func stage(_ room: RoomRecord) {
        Self.remember(room.id, graph.rooms, in: &metadata.before.rooms)
        graph.rooms[room.id] = room
    }

    func stageRoomRemoval(_ id: String) {
        Self.remember(id, graph.rooms, in: &metadata.before.rooms)
        graph.rooms[id] = nil
    }

    func stage(_ device: DeviceRecord) {
        Self.remember(device.id, graph.devices, in: &metadata.before.devices)
        graph.put(device)
    }

    /// Removes a device from the graph; returns it (nil: no such device).
    func stageDeviceRemoval(_ id: String) -> DeviceRecord? {
        Self.remember(id, graph.devices, in: &metadata.before.devices)
        return graph.removeDevice(id)
    }

    /// Keeps object `id`'s value in `objects` as its image, unless one is kept already (the older value).
    private static func remember<Record>(_ id: String, _ objects: [String: Record], in images: inout [String: Record?]) {
        if images.index(forKey: id) == nil { images[id] = .some(objects[id]) }
    }

    // MARK: - A failed commit

    /// Refuses every metadata change in `failed` (the batch that failed and all recorded behind it): its
    /// waiters get an error naming the cause, the graph goes back to the values before, its unpublished
    /// entries are dropped, and devices whose reverted values differ from what later state entries carried
    /// get a correcting change. Nothing of it is kept for a later commit.
    func refuse(_ failed: PendingMetadata, because error: any Error) {
        let refusal = Self.refusal(for: error)
        for (id, before) in failed.before.structures { graph.structures[id] = before }
        for (id, before) in failed.before.rooms { graph.rooms[id] = before }
        // The structure each reverted device was in with the refused change (for watchers it moves out of).
        var refusedStructure: [String: String] = [:]
        var gone: Set<String> = []
        for (id, before) in failed.before.devices {
            let current = graph.devices[id]
            refusedStructure[id] = current?.structureID
            if let before {
                graph.put(current.map { before.keepingState(of: $0) } ?? before)
            } else {
                graph.removeDevice(id)
                gone.insert(id)
            }
        }
        if !gone.isEmpty { unsaved = unsaved.filter { !gone.contains($0.key.deviceID) } }
        // Metadata entries never go out; state entries about a device that no longer exists neither.
        held.removeAll { $0.metadata || $0.entry.route.deviceID.map(gone.contains) == true }
        heldForCommit = held.count(where: \.needsCommit)
        // State entries still held were built on the refused values (a connectivity change carries the
        // whole device): their devices get the reverted record right after them.
        let touched = Set(held.compactMap { $0.entry.route.deviceID }).filter {
            failed.before.devices.index(forKey: $0) != nil
        }
        for waiter in failed.waiters { waiter.resume(throwing: refusal) }
        publishHeld(through: reserved)
        let revision = upcomingRevision
        let corrections: [GraphChange] = touched.sorted().compactMap { id in
            graph.modifyDevice(id) { $0.revision = revision }
            return graph.devices[id].map { .device($0, previousStructureID: refusedStructure[id]) }
        }
        if !corrections.isEmpty { _ = try? record(corrections, path: .state) }
        logger.error(
            "hub.commit.refused",
            metadata: [
                "error": "\(error)", "waiters": "\(failed.waiters.count)", "devices": "\(failed.before.devices.count)",
            ])
    }

    /// The answer to a caller whose change could not be stored: RESOURCE_EXHAUSTED for a full disk,
    /// UNAVAILABLE for any other write failure; both say the change was not made.
    static func refusal(for error: any Error) -> HubError {
        if let error = error as? StoreError, error.kind == .full {
            return HubError(.resourceExhausted, "the hub's disk is full, so the change was not made (\(error))")
        }
        return HubError(.unavailable, "the hub could not write to its database, so the change was not made (\(error))")
    }

    // MARK: - Fault state

    func storageFailed(_ path: StoragePath, _ error: any Error) {
        if faults[path] == nil {
            faults[path] = StorageFault(path: path, since: Date(), message: "\(error)")
        }
        metrics.recordStorageFailure(path: path)
    }

    func storageRecovered(_ path: StoragePath) {
        guard let fault = faults.removeValue(forKey: path) else { return }
        logger.notice("hub.storage.recovered", metadata: ["path": "\(path.rawValue)", "since": "\(fault.since)"])
    }

    /// The storage paths failing now (empty when every write succeeds).
    public func storageFaults() -> [StorageFault] { faults.values.sorted { $0.path.rawValue < $1.path.rawValue } }
}

extension DeviceRecord {
    /// This record (the value before a refused change) with the newer trait states of `current`: what
    /// devices reported meanwhile stands, only the refused metadata goes.
    func keepingState(of current: DeviceRecord) -> DeviceRecord {
        var device = self
        for t in device.types.indices {
            guard let c = current.typeIndex(endpoint: device.types[t].endpoint) else { continue }
            for i in device.types[t].traits.indices {
                guard let j = current.types[c].traitIndex(device.types[t].traits[i].traitID),
                    current.types[c].traits[j].revision > device.types[t].traits[i].revision
                else { continue }
                device.types[t].traits[i] = current.types[c].traits[j]
            }
        }
        device.revision = max(device.revision, current.revision)
        return device
    }
}

extension HubEngine.PendingMetadata {
    /// Adds what was recorded after this batch was taken: newer values win, older images stay.
    mutating func absorb(_ later: Self) {
        structures.merge(later.structures) { _, new in new }
        rooms.merge(later.rooms) { _, new in new }
        devices.merge(later.devices) { _, new in new }
        removedRooms.formUnion(later.removedRooms)
        removedDevices.formUnion(later.removedDevices)
        waiters += later.waiters
        before.absorb(later.before)
    }
}
