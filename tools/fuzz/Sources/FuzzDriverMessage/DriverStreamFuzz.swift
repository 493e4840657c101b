import Foundation
import FuzzSupport
import HearthModel
import HearthProto

@testable import HearthHub

/// One ``HubEngine`` on SQLite, opened once and reused: opening an engine (a new database, its schema, the
/// first commit) costs more than most inputs, so each input runs as one driver session on the same engine and
/// the engine is put back afterwards: the driver's devices removed, rooms it made deleted, the catalog
/// without its vendor traits, the driver disconnected.
///
/// The database lives under `$HEARTH_FUZZ_TMP` (`run.sh` sets it to its own temporary folder), else in
/// `/dev/shm` when there is one (a commit's fsync then costs nothing), and is removed at exit.
///
/// Checked after each input: every trait state the engine holds for the driver validates against the catalog
/// (a report or announcement that fails validation must leave no trace), and putting the engine back
/// leaves none of the driver's devices.
final class DriverStreamFuzz: Sendable {
    static let shared = DriverStreamFuzz()

    static let driver = "fuzz"
    static let admin = UserAccess(user: "admin", role: .admin, structures: nil)

    let engine: HubEngine
    let directory: URL
    let baseRooms: Set<String>

    private init() {
        directory = Self.directoryPath()
        try? FileManager.default.removeItem(at: directory)
        let configuration = HubEngine.Configuration(dataDirectory: directory)
        let engine = runBlocking { try? await HubEngine.open(configuration: configuration) }
        guard let engine else { fatalError("cannot open an engine in \(directory.path)") }
        self.engine = engine
        Task { try await engine.run() }
        baseRooms = Set(runBlocking { await engine.roomIDs() })
        atexit { try? FileManager.default.removeItem(at: DriverStreamFuzz.directoryPath()) }
    }

    /// This process's database folder.
    static func directoryPath() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["HEARTH_FUZZ_TMP"].map { URL(fileURLWithPath: $0) }
            ?? (FileManager.default.fileExists(atPath: "/dev/shm")
                ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory)
        return base.appendingPathComponent("hearth-fuzz-engine-\(getpid())")
    }

    /// One driver session: connect, the messages in order, disconnect, and the engine put back.
    func apply(_ messages: [InboundDriverMessage]) {
        let engine = engine
        let baseRooms = baseRooms
        runBlocking {
            let driver = Self.driver
            _ = await engine.driverConnected(driver)
            for message in messages {
                do {
                    try await Self.handle(message, driver: driver, engine: engine)
                } catch {
                    // The hub ends the driver's stream on a thrown error; so does this session.
                    break
                }
            }
            await engine.checkDriverState(driver)

            let left = await engine.localIDs(ofDriver: driver)
            if !left.isEmpty { _ = try? await engine.removeDevices(driver: driver, localIDs: left) }
            await engine.driverDisconnected(driver)
            for room in await engine.roomIDs() where !baseRooms.contains(room) {
                _ = try? await engine.deleteRoom(id: room, by: Self.admin)
            }
            await engine.forgetVendorTraits()
            let remaining = await engine.localIDs(ofDriver: driver).count
            fuzzCheck(remaining == 0, "\(remaining) devices of the driver survive their removal")
        }
    }

    /// What `DriverServiceHandler` does with one message after Hello, minus the replies.
    static func handle(_ inbound: InboundDriverMessage, driver: String, engine: HubEngine) async throws {
        let message: Hearth_V1_DriverMessage
        switch inbound {
        case .report(let traits):
            _ = try await engine.report(driver: driver, traits: traits)
            return
        case .other(let other): message = other
        }
        switch message.kind {
        case .announce(let announce): _ = try await engine.announce(driver: driver, announce)
        case .report(let report): _ = try await engine.report(driver: driver, report)
        case .events(let events): _ = try await engine.events(driver: driver, events)
        case .remove(let remove): _ = try await engine.removeDevices(driver: driver, localIDs: remove.deviceIds)
        case .result, .hello, nil: break
        }
    }
}

extension HubEngine {
    func roomIDs() -> [String] { Array(graph.rooms.keys) }

    func localIDs(ofDriver driver: String) -> [String] { graph.devices(ofDriver: driver).map(\.localID) }

    /// Checks every trait of the driver's devices against the catalog now in force.
    func checkDriverState(_ driver: String) {
        for device in graph.devices(ofDriver: driver) {
            for type in device.types {
                for trait in type.traits {
                    do {
                        try validator.validateReport(trait: trait.traitID, attributes: trait.attributes)
                    } catch {
                        guard validator.catalog.trait(trait.traitID) != nil else { continue }
                        fuzzCheck(false, "device \(device.id) holds state that does not validate: \(error.message)")
                    }
                }
            }
        }
    }

    /// Drops vendor traits registered at run time, so that the next input starts from the configured catalog.
    func forgetVendorTraits() {
        validator.catalog = configuration.catalog
    }
}
