import Foundation

/// Writes the seed corpus of every fuzz target: `fuzz-seeds [corpus folder]` (default `corpus`, relative
/// to the working directory). Each target's folder is emptied first, so the committed seeds are exactly
/// what this writes. Built without sanitizers (README.md):
///
///     swift run -c debug --scratch-path .build-seeds fuzz-seeds corpus
@main
struct SeedsMain {
    static func main() throws {
        let root = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "corpus")
        let writers: [(String, (inout Corpus) throws -> Void)] = [
            ("FuzzWireFraming", WireSeeds.write),
            ("FuzzVendorSchema", SchemaSeeds.write),
            ("FuzzValueValidator", ValueSeeds.write),
            ("FuzzDriverMessage", DriverSeeds.write),
        ]
        for (target, write) in writers {
            var corpus = try Corpus(directory: root.appendingPathComponent(target))
            try write(&corpus)
            print("\(target): \(corpus.count) seeds, \(corpus.bytes) bytes")
        }
        // Regression inputs of known shapes, beside the reproducers that fuzzing finds (those are copied by
        // hand and left alone here).
        let regressions = root.deletingLastPathComponent().appendingPathComponent("regressions")
        try SchemaSeeds.writeRegressions(to: regressions.appendingPathComponent("FuzzVendorSchema"))
    }
}

/// One target's seed folder.
struct Corpus {
    let directory: URL
    private(set) var count = 0
    private(set) var bytes = 0
    private var names: Set<String> = []

    /// Empties (or creates) the folder.
    init(directory: URL) throws {
        self.directory = directory
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Writes one seed; names must be unique within a target.
    mutating func add(_ name: String, _ content: [UInt8]) throws {
        precondition(names.insert(name).inserted, "seed name \(name) used twice")
        try Data(content).write(to: directory.appendingPathComponent(name))
        count += 1
        bytes += content.count
    }
}
