import HearthDriverKit
import HearthModel
import HearthSimulator
import HearthTypes
import HearthWire
import Synchronization

extension CameraSimulation {
    typealias Settings = Google.CameraAvStreamManagementTrait

    /// The write handler of `CameraAvStreamManagementTrait`. The hub has already checked types, writability
    /// and the catalog's value rules (imageRotation 0 or 180, …); the camera adds its own: only attributes it
    /// has, levels within its minimum and maximum, a viewport inside its sensor. Accepted values are stored and
    /// reported by HearthDriverKit.
    func installSettings(_ driver: Driver) {
        driver.onWrite(Settings.self) { [self] written, context in
            try CameraError.mapped { () throws(CameraError) in
                counters.withLock { $0.writes += 1 }
                guard let profile = cameras.withLock({ $0[context.device.id]?.profile }),
                    let current = try? context.device.attributes(Settings.self, endpoint: context.endpoint)
                else { throw CameraError(.notFound, "no camera \(context.device.id)") }
                try Self.check(written, against: current, profile: profile, ids: Set(context.attributes.keys))
            }
        }
    }

    static func check(_ written: Settings.Attributes, against current: Settings.Attributes, profile: CameraProfile, ids: Set<AttributeID>)
        throws(CameraError)
    {
        if let missing = ids.sorted().first(where: { current.values[$0] == nil }) {
            throw CameraError(.notFound, "\(profile.id) has no attribute \(missing) (a \(profile.kind.rawValue) without it)")
        }
        if let level = written.speakerVolumeLevel {
            try within(level, current.speakerMinLevel, current.speakerMaxLevel, "speakerVolumeLevel")
        }
        if let level = written.microphoneVolumeLevel {
            try within(level, current.microphoneMinLevel, current.microphoneMaxLevel, "microphoneVolumeLevel")
        }
        if let viewport = written.viewport {
            guard viewport.x1 < viewport.x2, viewport.y1 < viewport.y2, viewport.x2 < profile.width,
                viewport.y2 < profile.height
            else {
                throw CameraError(
                    .invalidArgument,
                    "the viewport must be a non-empty rectangle inside the \(profile.width)x\(profile.height) sensor")
            }
        }
    }

    private static func within(_ level: UInt8, _ low: UInt8?, _ high: UInt8?, _ name: String) throws(CameraError) {
        let low = low ?? 0
        let high = high ?? 254
        guard (low...high).contains(level) else {
            throw CameraError(.invalidArgument, "\(name) must be between \(low) and \(high), got \(level)")
        }
    }
}
