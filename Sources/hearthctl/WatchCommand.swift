import ArgumentParser
import Foundation
import HearthSDK

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print changes to devices, rooms and structures as they happen (one line each, or JSON lines).")
    @OptionGroup var hub: HubOptions
    @Option(help: "Stop after this many changes.") var count: Int?
    @Option(help: "Stop after this many seconds.") var seconds: Double?

    func run() async throws {
        try await Hearthctl.run(hub) { home in
            _ = try await home.devices().list()  // synced: what follows are changes
            print("watching \(try await home.devices().list().count) devices from revision \(home.revision)")
            fflush(nil)
            let lines = AsyncStream<String>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await device in home.devices().changes.dropFirst(try await home.devices().list().count) {
                        lines.continuation.yield(
                            line(["kind": "device", "id": device.id, "name": device.name,
                                  "state": Output.state(device.sourceConnectivity), "roomId": device.roomID ?? ""]))
                    }
                }
                group.addTask {
                    for try await room in home.rooms().changes.dropFirst(try await home.rooms().list().count) {
                        lines.continuation.yield(line(["kind": "room", "id": room.id, "name": room.name]))
                    }
                }
                group.addTask {
                    for try await structure in home.structures().changes.dropFirst(try await home.structures().list().count) {
                        lines.continuation.yield(line(["kind": "structure", "id": structure.id, "name": structure.name]))
                    }
                }
                if let seconds {
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                        lines.continuation.finish()
                    }
                }
                var printed = 0
                for await text in lines.stream {
                    print(text)
                    fflush(nil)
                    printed += 1
                    if let count, printed >= count { break }
                }
                group.cancelAll()
            }
        }
    }

    private func line(_ fields: [String: String]) -> String {
        if hub.json, let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) {
            return String(decoding: data, as: UTF8.self)
        }
        let time = ISO8601DateFormatter().string(from: Date())
        return "\(time) \(fields["kind"]!) \(fields["id"]!) \(fields["name"]!)"
            + (fields["state"].map { " \($0)" } ?? "")
    }
}
