import ArgumentParser
import Foundation

/// The hub's engine measured alone, in process: no sockets, no HTTP/2, no driver or client processes.
///
/// `run` (the default) starts one `measure` process per device count and then `cold-start` processes on the
/// data directory it left, prints the tables and optionally writes JSON. The subcommands are the pieces,
/// each in a fresh process so that one measurement's memory does not leak into the next.
@main
struct HearthEngineBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-engine-bench",
        abstract: "Measures the hub's engine in process: change throughput with watchers, memory per device, cold start.",
        discussion: """
            There is no peer to compare with: nothing else runs Hearth's engine. tools/Benchmarks/engine.sh builds \
            this in release and runs it; tools/Benchmarks/README.md says what each figure means.
            """,
        subcommands: [RunCommand.self, MeasureCommand.self, ColdStartCommand.self],
        defaultSubcommand: RunCommand.self)
}

/// A comma-separated list of counts; `k` multiplies by 1000 (`10k,100k`).
struct CountList: ExpressibleByArgument, Codable, Sendable {
    var values: [Int]

    init(_ values: [Int]) { self.values = values }

    init?(argument: String) {
        var values: [Int] = []
        for part in argument.split(separator: ",") {
            let text = part.trimmingCharacters(in: .whitespaces).lowercased()
            let number = text.hasSuffix("k") ? Int(text.dropLast()).map { $0 * 1000 } : Int(text)
            guard let number, number >= 0 else { return nil }
            values.append(number)
        }
        guard !values.isEmpty else { return nil }
        self.values = values
    }

    var argument: String { values.map(String.init).joined(separator: ",") }
}

extension Subscriber.Work: ExpressibleByArgument {}
