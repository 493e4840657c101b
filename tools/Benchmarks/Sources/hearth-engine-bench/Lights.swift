import HearthModel
import HearthProto
import SwiftProtobuf

/// The benchmark's driver side: N dimmable lights (Matter DimmableLight 0x0101 on endpoint 1 with Identify,
/// OnOff and LevelControl), announced and then reported on, as a driver process would through the hub's
/// driver service.
///
/// Every report changes a value the engine holds, so none is skipped as unchanged: even-numbered lights
/// step `LevelControl.currentLevel` (1…254, never the value before), odd-numbered ones toggle `OnOff.onOff`.
struct Lights {
    /// The driver id the devices belong to.
    static let driver = "bench-lights"
    /// DriverKit's default `devicesPerAnnounce`: a real driver announces in messages of this many devices.
    static let devicesPerAnnounce = 200

    static let identify: UInt32 = 0x0003
    static let onOff: UInt32 = 0x0006
    static let levelControl: UInt32 = 0x0008

    let count: Int
    /// Local ids, made once so that reporting costs no string formatting.
    private let ids: [String]
    /// Reports made so far; the next report's light and value follow from it.
    private(set) var step = 0

    init(count: Int) {
        self.count = count
        ids = (0..<count).map { Self.localID($0) }
    }

    static func localID(_ index: Int) -> String {
        let digits = String(index)
        return "light-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// How many Announce messages announce every light.
    var announceMessages: Int { (count + Self.devicesPerAnnounce - 1) / Self.devicesPerAnnounce }

    /// Announce message `index` (0 ..< ``announceMessages``): up to ``devicesPerAnnounce`` lights. Built on
    /// demand, so that the messages do not stay in memory while the engine's memory is measured.
    func announce(_ index: Int) -> Hearth_V1_Announce {
        let start = index * Self.devicesPerAnnounce
        return .with { $0.devices = (start..<min(start + Self.devicesPerAnnounce, count)).map(announcement) }
    }

    private func announcement(_ index: Int) -> Hearth_V1_DeviceAnnouncement {
        func trait(_ id: UInt32, _ attributes: [(UInt32, Value)]) -> Hearth_V1_AnnouncedTrait {
            .with {
                $0.traitID = id
                $0.locality = .local
                $0.attributes = attributes.map { attribute in .with { $0.id = attribute.0; $0.value = attribute.1.proto } }
            }
        }
        return .with {
            $0.id = ids[index]
            $0.suggestedName = "Light \(index)"
            $0.isMatterDevice = true
            $0.types = [
                .with {
                    $0.endpoint = 1
                    $0.deviceTypeID = 0x0101
                    $0.primary = true
                    $0.traits = [
                        trait(Self.identify, [(0, .uint(0))]),
                        trait(Self.onOff, [(0, .bool(false))]),
                        // currentLevel 0 at first, so the first level report (1) is a change.
                        trait(Self.levelControl, [(0, .uint(0)), (2, .uint(1)), (3, .uint(254))]),
                    ]
                }
            ]
        }
    }

    /// The next report: `traits` trait changes (one per light, round robin over all lights).
    mutating func nextReport(traits: Int) -> Hearth_V1_Report {
        var report = Hearth_V1_Report()
        report.traits.reserveCapacity(traits)
        for _ in 0..<traits {
            let index = step % count
            let pass = step / count
            step += 1
            var item = Hearth_V1_TraitReport()
            item.deviceID = ids[index]
            item.endpoint = 1
            var attribute = Hearth_V1_Attribute()
            attribute.id = 0
            if index % 2 == 0 {
                item.traitID = Self.levelControl
                attribute.value = Value.uint(UInt64(1 + pass % 254)).proto
            } else {
                item.traitID = Self.onOff
                attribute.value = Value.bool(pass % 2 == 0).proto
            }
            item.attributes = [attribute]
            report.traits.append(item)
        }
        return report
    }
}
