import HearthModel
import HearthProto
import HearthTypes
import SwiftProtobuf

/// A watch stream as a hub sends it to a client, encoded once, for replaying to HearthSDK with no hub in the
/// loop (`hearth-load sdk-bench`): the snapshot (one structure, rooms, devices, the synced mark), then
/// trait changes.
///
/// The devices are dimmable lights shaped as the shipped lights driver announces them (Identify, OnOff,
/// LevelControl and a complete BasicInformation on endpoint 1); each change is a LevelControl report, the
/// whole trait as the hub sends it, on a device drawn from a seeded sequence; or, with `additions`, each
/// change is a new device of the same shape (a driver announcing devices after the client synced).
public struct ReplayStream: Sendable {
    /// Encoded `WatchResponse`s of the snapshot, the last one carrying `synced`.
    public let snapshot: [[UInt8]]
    /// Encoded `WatchResponse`s of the changes, `changesPerResponse` each.
    public let changes: [[UInt8]]
    /// The revision the last change response carries: a client that reached it applied everything.
    public let finalRevision: UInt64
    /// Trait changes in ``changes``.
    public let changeCount: Int

    /// - Parameters:
    ///   - devices: devices in the snapshot.
    ///   - changes: trait changes after it.
    ///   - changesPerResponse: changes per response (the hub batches what one tick publishes).
    ///   - additions: the changes add new devices instead of changing the snapshot's.
    public init(devices: Int, changes: Int, changesPerResponse: Int, additions: Bool = false) {
        var revision: UInt64 = 1
        var responses: [[UInt8]] = []
        var first = Hearth_V1_WatchResponse()
        first.epoch = "replay"
        first.snapshotDevices = UInt64(devices)  // as the hub says it to a watcher that sees every device
        first.changes.append(.with {
            $0.revision = revision
            $0.structure = .with { $0.id = "home"; $0.name = "Home"; $0.revision = revision }
        })
        for room in 0..<20 {
            revision += 1
            first.changes.append(.with {
                $0.revision = revision
                $0.room = .with { $0.id = "room-\(room)"; $0.structureID = "home"; $0.name = "Room \(room)"; $0.revision = revision }
            })
        }
        first.revision = revision
        responses.append(Self.encode(first))
        var batch = Hearth_V1_WatchResponse()
        for index in 0..<devices {
            revision += 1
            batch.changes.append(.with { $0.revision = revision; $0.device = Self.device(index, revision: revision) })
            if batch.changes.count == 500 || index == devices - 1 {
                batch.revision = revision
                batch.synced = index == devices - 1
                responses.append(Self.encode(batch))
                batch = Hearth_V1_WatchResponse()
            }
        }
        if devices == 0 { responses.append(Self.encode(.with { $0.revision = revision; $0.synced = true })) }
        snapshot = responses

        var generator = SplitMix(seed: 42)
        var out: [[UInt8]] = []
        var response = Hearth_V1_WatchResponse()
        for step in 0..<changes where devices > 0 || additions {
            revision += 1
            if additions {
                let added = Self.device(devices + step, revision: revision)
                response.changes.append(.with { $0.revision = revision; $0.device = added })
            } else {
                let index = Int(generator.next() % UInt64(devices))
                response.changes.append(.with {
                    $0.revision = revision
                    $0.trait = .with {
                        $0.deviceID = "replay/light-\(index)"
                        $0.endpoint = 1
                        $0.state = Self.level(UInt8(truncatingIfNeeded: step % 254 + 1), revision: revision)
                    }
                })
            }
            if response.changes.count == changesPerResponse || step == changes - 1 {
                response.revision = revision
                out.append(Self.encode(response))
                response = Hearth_V1_WatchResponse()
            }
        }
        self.changes = out
        finalRevision = revision
        changeCount = devices > 0 || additions ? changes : 0
    }

    static func encode(_ response: Hearth_V1_WatchResponse) -> [UInt8] {
        (try? response.serializedBytes()) ?? []  // encoding a message built here cannot fail
    }

    static func device(_ index: Int, revision: UInt64) -> Hearth_V1_Device {
        var device = Hearth_V1_Device()
        device.id = "replay/light-\(index)"
        device.driverID = "replay"
        device.structureID = "home"
        device.roomID = "room-\(index % 20)"
        device.name = "Light \(index)"
        device.isMatterDevice = true
        device.connectivity = ConnectivityState.online.proto
        device.locality = DataSourceLocality.local.proto
        device.revision = revision
        device.types = [
            .with {
                $0.endpoint = 1
                $0.deviceTypeID = DimmableLightDeviceType.deviceTypeID.rawValue
                $0.primary = true
                $0.traits = [
                    trait(Matter.IdentifyTrait.self, revision: revision) { $0.identifyTime = 0; $0.identifyType = .lightOutput },
                    trait(Matter.OnOffTrait.self, revision: revision) {
                        $0.onOff = index % 2 == 0; $0.onTime = 0; $0.offWaitTime = 0; $0.globalSceneControl = true
                    },
                    level(UInt8(index % 254 + 1), revision: revision),
                    trait(Matter.BasicInformationTrait.self, revision: revision) {
                        $0.dataModelRevision = 18; $0.vendorName = "Northlight"; $0.vendorID = 0xFFF1
                        $0.productName = "Dim Bulb A60"; $0.productID = 0x1002; $0.nodeLabel = ""; $0.location = "XX"
                        $0.hardwareVersion = 1; $0.hardwareVersionString = "1.0"; $0.softwareVersion = 0x0104_0200
                        $0.softwareVersionString = "1.4.2"; $0.serialNumber = "NLD-\(index)"; $0.uniqueID = "NLD-\(index)"
                        $0.specificationVersion = 0x0104_0000; $0.maxPathsPerInvoke = 1
                        $0.capabilityMinima = .init(caseSessionsPerFabric: 3, subscriptionsPerFabric: 3)
                    },
                ]
            }
        ]
        return device
    }

    static func level(_ level: UInt8, revision: UInt64) -> Hearth_V1_TraitState {
        trait(Matter.LevelControlTrait.self, revision: revision) {
            $0.currentLevel = level; $0.minLevel = 1; $0.maxLevel = 254; $0.options = []; $0.onLevel = nil
            $0.remainingTime = 0; $0.onOffTransitionTime = 0; $0.defaultMoveRate = 50
        }
    }

    static func trait<T: Trait>(_ type: T.Type, revision: UInt64, _ values: (inout T.Attributes) -> Void) -> Hearth_V1_TraitState {
        var attributes = T.Attributes(values: [:])
        values(&attributes)
        var state = Hearth_V1_TraitState()
        state.traitID = T.traitID.rawValue
        state.attributes = attributes.values.sorted { $0.key < $1.key }.map { id, value in
            .with { $0.id = id.rawValue; $0.value = value.proto }
        }
        state.connectivity = ConnectivityState.online.proto
        state.locality = DataSourceLocality.local.proto
        state.confirmed = true
        state.revision = revision
        return state
    }
}

/// A small seeded generator, so that every run replays the same stream.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
