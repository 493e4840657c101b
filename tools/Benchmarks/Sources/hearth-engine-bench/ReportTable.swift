import Foundation

/// The printed form of a ``BenchReport``: a heading, then one table per measurement.
struct ReportTable {
    let report: BenchReport

    init(_ report: BenchReport) { self.report = report }

    func render() -> String {
        let s = report.settings
        var out: [String] = [
            "",
            "Hearth engine benchmark: HubEngine in process, no sockets. \(report.host), \(report.cpus) CPUs, "
                + "load average \(report.loadAverageAtStart) at start, \(report.loadAverageAtEnd) at end",
            "Lights report one \(s.traitsPerReport == 1 ? "trait change" : "batch of \(s.traitsPerReport) trait changes") "
                + "per Report; subscribers watch everything from revision 0 and \(s.subscriberWork) each response; "
                + "\(Self.number(s.seconds, 1)) s windows after \(Self.number(s.warmupSeconds, 1)) s of warm-up; "
                + "the engine retains \(Self.count(s.retainedChanges)) changes.",
            "",
            "Throughput. reported/s: trait changes the engine took from the driver loop. applied/s: changes committed and",
            "published, over the time until the last one was. delivered/s: changes one subscriber received, over the time",
            "until all had everything (fewer than applied when a backlog was coalesced or a subscriber re-listed).",
        ]
        var throughput = TextTable([
            "devices", "subscribers", "reported/s", "applied/s", "delivered/s per sub", "slowest sub/s", "sub MiB/s",
            "changes/commit", "coalesced reads", "relists", "snapshots s", "drain s", "RSS MiB",
        ])
        for result in report.results {
            for t in result.throughput {
                let none = t.subscribers == 0
                throughput.add([
                    Self.count(t.devices), String(t.subscribers), Self.count(t.reportedPerSecond),
                    Self.count(t.appliedPerSecond),
                    none ? "-" : Self.count(t.deliveredPerSubscriberPerSecond),
                    none ? "-" : Self.count(t.deliveredSlowestPerSecond),
                    none ? "-" : Self.number(t.bytesPerSubscriberPerSecond / 1_048_576, 1),
                    Self.count(t.changesPerCommit), none ? "-" : String(t.coalescedReads),
                    none ? "-" : String(t.relists),
                    none ? "-" : Self.number(t.snapshotSeconds, 2), Self.number(t.drainSeconds, 2), Self.mib(t.rssBytes),
                ])
            }
        }
        out.append(throughput.render())
        out.append("")
        out.append("Memory per device (RSS after malloc_trim, before and after announcing; 200 lights per Announce, each committed)")
        var memory = TextTable(["devices", "RSS before MiB", "RSS after MiB", "bytes/device", "announce s", "peak RSS MiB"])
        for result in report.results {
            let m = result.memory
            memory.add([
                Self.count(m.devices), Self.mib(m.rssBeforeBytes), Self.mib(m.rssAfterBytes),
                Self.count(m.bytesPerDevice), Self.number(m.announceSeconds, 1), Self.mib(m.peakRssBytes),
            ])
        }
        out.append(memory.render())
        if report.results.contains(where: { !$0.coldStarts.isEmpty }) {
            out.append("")
            out.append(
                "Cold start (fresh process opening the data directory measure left; median of \(s.coldStarts); warm page cache)")
            var cold = TextTable([
                "devices", "open ms", "info() ms", "first snapshot ms", "process to snapshot ms", "RSS MiB", "snapshot ms, each run",
            ])
            for result in report.results where !result.coldStarts.isEmpty {
                let c = result.coldStarts
                cold.add([
                    Self.count(result.devices), Self.number(Self.median(c.map(\.openSeconds)) * 1000, 0),
                    Self.number(Self.median(c.map(\.infoSeconds)) * 1000, 0),
                    Self.number(Self.median(c.map(\.snapshotSeconds)) * 1000, 0),
                    c.allSatisfy({ $0.processReadySeconds != nil })
                        ? Self.number(Self.median(c.compactMap(\.processReadySeconds)) * 1000, 0) : "-",
                    Self.mib(Int(Self.median(c.map { Double($0.rssBytes) }))),
                    c.map { Self.number($0.snapshotSeconds * 1000, 0) }.joined(separator: " "),
                ])
            }
            out.append(cold.render())
        }
        out.append("")
        out.append("No peer: nothing else runs Hearth's engine (tools/Benchmarks/README.md).")
        return out.joined(separator: "\n")
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// A whole number with thousands separators: 1,234,567.
    static func count(_ value: some BinaryInteger) -> String { count(Double(value)) }

    static func count(_ value: Double) -> String {
        let digits = String(Int(value.rounded()).magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (value < -0.5 ? "-" : "") + grouped
    }

    static func number(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

    static func mib(_ bytes: Int) -> String { number(Double(bytes) / 1_048_576, 1) }
}

/// Columns right-aligned under their headings, two spaces apart.
struct TextTable {
    private let headers: [String]
    private var rows: [[String]] = []

    init(_ headers: [String]) { self.headers = headers }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
