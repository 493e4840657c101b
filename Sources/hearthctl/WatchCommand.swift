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
            print("watching \(try await home.devices().list().count) devices from revision \(home.revision)")
            fflush(nil)
            let lines = AsyncStream<String>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await follow(home.devices(), "device", lines.continuation) {
                        ["state": Output.state($0.sourceConnectivity), "roomId": $0.roomID ?? ""]
                    }
                }
                group.addTask { try await follow(home.rooms(), "room", lines.continuation) { _ in [:] } }
                group.addTask { try await follow(home.structures(), "structure", lines.continuation) { _ in [:] } }
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

    /// Yields a line for each object of `query` added, changed or removed after the first (current) set.
    /// Comparing whole sets keeps this exact however the first emission and later ones are spaced.
    private func follow<T: HomeObject & Named>(
        _ query: Query<T>, _ kind: String, _ lines: AsyncStream<String>.Continuation,
        details: @escaping @Sendable (T) -> [String: String]
    ) async throws {
        var previous: [String: T]?
        for try await batch in query.batches {
            let current = Dictionary(uniqueKeysWithValues: batch.map { ($0.id, $0) })
            if let previous {
                for (id, object) in current.sorted(by: { $0.key < $1.key }) where previous[id] != object {
                    lines.yield(line(["kind": kind, "id": id, "name": object.name].merging(details(object)) { a, _ in a }))
                }
                for id in previous.keys.sorted() where current[id] == nil {
                    lines.yield(line(["kind": kind, "id": id, "name": previous[id]!.name, "state": "removed"]))
                }
            }
            previous = current
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

/// Objects with a user-visible name.
protocol Named { var name: String { get } }
extension HomeDevice: Named {}
extension Room: Named {}
extension Structure: Named {}
