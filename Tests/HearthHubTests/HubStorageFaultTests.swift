import Foundation
@testable import HearthHub
import HearthModel
import HearthProto
import HearthWire
import NIOHTTP1
import SwiftProtobuf
import Testing

/// A real hub on a real, small file system that fills up: what a person changes is refused and never
/// lands later, trait state keeps flowing, the fault shows, and the hub recovers by itself.
@Suite("Storage faults on a full disk", .serialized, .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct HubStorageFaultTests {
    @Test("disk full: a rename and a new device are refused and taken back, reports flow, /healthz shows it, space returns")
    func diskFull() async throws {
        try await withSmallFileSystem { directory in
            try await withHub(directory: directory) { hub, client in
                try await withTestDriver(client, devices: [onOffLight("lamp-0"), onOffLight("lamp-1")]) { driver in
                    _ = try await client.call(
                        HomeMethods.renameDevice, .with { $0.deviceID = "lights/lamp-0"; $0.name = "Before" })
                    let filler = try fill(directory)

                    // The rename is refused with a status naming the cause, and the graph keeps the old name.
                    do {
                        _ = try await client.call(
                            HomeMethods.renameDevice, .with { $0.deviceID = "lights/lamp-0"; $0.name = "Refused" })
                        Issue.record("a rename on a full disk succeeded")
                    } catch let error as RPCError {
                        #expect(error.code == .resourceExhausted, "\(error)")
                        #expect(error.message.contains("disk is full"), "\(error)")
                    }
                    #expect(try await hub.engine.graph.devices["lights/lamp-0"]?.name == "Before")

                    // A new device is refused and is not in the graph.
                    await #expect(throws: HubError.self) {
                        _ = try await hub.engine.announce(driver: "lights", .with { $0.devices = [onOffLight("lamp-new")] })
                    }
                    #expect(try await hub.engine.graph.devices["lights/lamp-new"] == nil)

                    // Trait state still reaches a watcher, from memory.
                    driver.report("lamp-1", trait: 0x0006, [0: .bool(true)])
                    let seen = try await client.watch(.from(0)) { responses in Self.lampOn(responses) }
                    #expect(Self.lampOn(seen), "the report reached the watcher")
                    #expect(!seen.changes.contains { $0.device.name == "Refused" }, "the refused name never went out")

                    // The fault shows on /healthz and in the metrics.
                    let health = await hub.respond(to: "/healthz")
                    #expect(health.status == .serviceUnavailable)
                    #expect(health.body.contains("storage fault"), "\(health.body)")
                    #expect(await hub.metricsText().contains(#"hearth_storage_fault{path="metadata"} 1"#))

                    // Space returns: the hub recovers by itself and takes changes again.
                    try FileManager.default.removeItem(at: filler)
                    _ = try await eventually(timeout: .seconds(20)) {
                        try await hub.engine.storageFaults().isEmpty ? true : nil
                    }
                    #expect(await hub.respond(to: "/healthz").status == .ok)
                    #expect(try await hub.engine.graph.devices["lights/lamp-0"]?.name == "Before", "the refused rename never landed")
                    _ = try await client.call(
                        HomeMethods.renameDevice, .with { $0.deviceID = "lights/lamp-0"; $0.name = "After" })
                }
            }
            // After a restart: the accepted rename, no refused device, and the report saved while full.
            try await withHub(directory: directory) { hub, _ in
                let graph = try await hub.engine.graph
                #expect(graph.devices["lights/lamp-0"]?.name == "After")
                #expect(graph.devices["lights/lamp-new"] == nil)
                let onOff = graph.devices["lights/lamp-1"]?.types.first?.traits.first { $0.traitID == TraitID(0x0006) }
                #expect(onOff?.attributes[AttributeID(0)] == .bool(true))
            }
        }
    }

    /// Whether lamp-1's OnOff is on in what a watcher received (in the snapshot or in a later change).
    static func lampOn(_ responses: [Hearth_V1_WatchResponse]) -> Bool {
        var on = false
        for change in responses.changes {
            let states: [Hearth_V1_TraitState] =
                switch change.kind {
                case .device(let d) where d.id == "lights/lamp-1": d.types.flatMap(\.traits)
                case .trait(let t) where t.deviceID == "lights/lamp-1": [t.state]
                default: []
                }
            for state in states where state.traitID == 0x0006 {
                on = state.attributes.contains { $0.id == 0 && $0.value == Value.bool(true).proto }
            }
        }
        return on
    }
}

/// A fresh 4 MiB tmpfs mounted for `body`, unmounted afterwards.
func withSmallFileSystem<T>(_ body: (URL) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        try run("/bin/mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", directory.path)
        defer { try? run("/bin/umount", "-l", directory.path) }
        return try await body(directory.appendingPathComponent("data"))
    }
}

/// Fills the file system holding `directory` with one file until a write fails for want of space.
func fill(_ directory: URL) throws -> URL {
    let url = directory.deletingLastPathComponent().appendingPathComponent("filler")
    FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    let chunk = Data(repeating: 0xAB, count: 4096)
    for _ in 0..<(64 << 10) {
        do { try handle.write(contentsOf: chunk) } catch { return url }
    }
    throw HarnessError(description: "the file system did not fill up")
}

private func run(_ tool: String, _ arguments: String...) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw HarnessError(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
}
