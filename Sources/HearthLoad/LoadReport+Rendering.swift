import Foundation

extension LoadReport {
    /// The report as the text table `hearth-load` prints.
    public var table: String {
        var out: [String] = []
        out.append(
            "hearth-load \(plan.name): \(plan.devices) devices, \(plan.drivers) drivers, "
                + "\(plan.clientList.count) clients, \(cores) cores"
                + (plan.updateIntervalMs > 0 ? ", clients' update interval \(plan.updateIntervalMs) ms" : ""))
        out.append(
            String(format: "hub start %.2f s · all devices online %.2f s · first list() median %.2f s, max %.2f s",
                hubStartSeconds, registerSeconds, Self.median(Array(firstListSeconds.values)),
                firstListSeconds.values.max() ?? 0))
        if let footprint = clientFootprint {
            out.append(
                String(format: "one client alone: list() of %d devices in %.2f s, %.0f bytes per device (RSS %.0f → %.0f MiB)",
                    footprint.devices, footprint.listSeconds, footprint.bytesPerDevice,
                    Double(footprint.residentBefore) / 1_048_576, Double(footprint.residentAfter) / 1_048_576))
        }
        if let peer = peerListSeconds {
            out.append(String(format: "peer (HEARTH_LOAD_PEER_LIST) to its synced mark: %.2f s", peer))
        }
        out.append("")
        let header = ["phase", "rate/s", "sent", "deliv/s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms",
                      "coalesced", "gaps", "dups", "regr", "hub CPU%", "hub MiB", "lag ms", "pass"]
        var rows = [header]
        for phase in phases {
            rows.append([
                phase.kind, Self.number(phase.rate), "\(phase.sent)", Self.number(phase.deliveriesPerSecond),
                Self.ms(phase.latency.p50), Self.ms(phase.latency.p90), Self.ms(phase.latency.p99),
                Self.ms(phase.latency.p999), Self.ms(phase.latency.max), "\(phase.coalesced)", "\(phase.gaps)",
                "\(phase.duplicates)", "\(phase.regressions)", Self.number(phase.hubCPUPercent),
                Self.number(phase.hubMemoryMiB), Self.ms(phase.driverMaxLagMs), phase.passed ? "yes" : "no",
            ])
        }
        out.append(contentsOf: Self.align(rows))
        for phase in phases {
            guard let stalled = phase.stalledClient else { continue }
            out.append("")
            out.append(
                "stall: one batched client blocked \(Self.number(stalled.stallSeconds)) s at \(Self.number(phase.rate))/s: "
                    + "the others' p99 \(Self.ms(phase.latency.p99)) ms; it got \(stalled.deliveries) values "
                    + "(\(stalled.coalesced) coalesced), p99 \(Self.ms(stalled.latency.p99)) ms, "
                    + (stalled.caughtUp ? "and caught up with every device" : "and did NOT catch up"))
        }
        if let commands, commands.sent == 0 {
            out.append("")
            out.append("commands: none sent (no HearthSDK client to send them, or no OnOff device)")
        } else if let commands {
            out.append("")
            out.append(
                "commands: \(commands.sent) toggles at \(Self.number(commands.rate))/s, \(commands.succeeded) ok, "
                    + "round trip p50 \(Self.ms(commands.roundTrip.p50)) ms, p99 \(Self.ms(commands.roundTrip.p99)) ms, "
                    + "max \(Self.ms(commands.roundTrip.max)) ms"
                    + (commands.fromCall.map { "; from the call p50 \(Self.ms($0.p50)) ms, p99 \(Self.ms($0.p99)) ms" } ?? "")
                    + (commands.generatorLate.map { "; generator late p50 \(Self.ms($0.p50)) ms, p99 \(Self.ms($0.p99)) ms" } ?? "")
                    + (commands.errors.isEmpty ? "" : ", errors \(commands.errors.sorted { $0.key < $1.key })"))
        }
        out.append("")
        out.append(
            "highest rate with p99 < \(Self.number(plan.latencyTarget)) ms and nothing lost: "
                + (maxSustainedRate.map { "\(Self.number($0)) reports/s" } ?? "none")
                + String(format: " · hub peak memory %.0f MiB", hubPeakMemoryMiB))
        if !clientFailures.isEmpty { out.append("client failures: \(clientFailures.sorted { $0.key < $1.key })") }
        out.append(clean ? "result: no gaps, duplicates, regressions or errors" : "result: FAILED (see above)")
        return out.joined(separator: "\n")
    }

    /// Latency percentiles against rate, as an SVG line chart (log-scaled delay axis).
    public var svg: String {
        let points = phases.filter { $0.kind == "rate" }.sorted { $0.rate < $1.rate }
        let width = 720.0, height = 420.0, left = 70.0, right = 150.0, top = 40.0, bottom = 60.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let rates = points.map(\.rate)
        let minRate = rates.min() ?? 1, maxRate = max(rates.max() ?? 1, minRate * 2)
        let values = points.flatMap { [$0.latency.p50, $0.latency.max] }.map { max($0, 0.01) } + [plan.latencyTarget]
        let low = log10(values.min() ?? 0.1).rounded(.down), high = max(log10(values.max() ?? 100).rounded(.up), low + 1)
        func x(_ rate: Double) -> Double { left + (log10(rate) - log10(minRate)) / (log10(maxRate) - log10(minRate)) * plotWidth }
        func y(_ ms: Double) -> Double { top + plotHeight - (log10(max(ms, 0.01)) - low) / (high - low) * plotHeight }
        var svg = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
            "<text x=\"\(left)\" y=\"22\" font-size=\"14\">hearth-load \(plan.name): report-to-publisher delay against rate (\(plan.devices) devices, \(plan.drivers) drivers, \(plan.clientList.count) clients)</text>",
        ]
        for decade in stride(from: low, through: high, by: 1) {
            let label = decade < 0 ? String(format: "%.*f", Int(-decade), pow(10, decade)) : "\(Int(pow(10, decade)))"
            svg.append("<line x1=\"\(left)\" x2=\"\(left + plotWidth)\" y1=\"\(y(pow(10, decade)))\" y2=\"\(y(pow(10, decade)))\" stroke=\"#ddd\"/>")
            svg.append("<text x=\"\(left - 8)\" y=\"\(y(pow(10, decade)) + 4)\" text-anchor=\"end\">\(label)</text>")
        }
        for rate in rates {
            svg.append("<text x=\"\(x(rate))\" y=\"\(top + plotHeight + 18)\" text-anchor=\"middle\">\(Self.number(rate))</text>")
        }
        svg.append("<text x=\"\(left + plotWidth / 2)\" y=\"\(height - 15)\" text-anchor=\"middle\">reports per second (log)</text>")
        svg.append("<text x=\"18\" y=\"\(top + plotHeight / 2)\" transform=\"rotate(-90 18 \(top + plotHeight / 2))\" text-anchor=\"middle\">delay, ms (log)</text>")
        svg.append("<line x1=\"\(left)\" x2=\"\(left + plotWidth)\" y1=\"\(y(plan.latencyTarget))\" y2=\"\(y(plan.latencyTarget))\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>")
        svg.append("<text x=\"\(left + plotWidth + 8)\" y=\"\(y(plan.latencyTarget) + 4)\" fill=\"#c00\">p99 target</text>")
        let series: [(String, String, KeyPath<Percentiles, Double>)] = [
            ("p50", "#1b9e77", \.p50), ("p90", "#d95f02", \.p90), ("p99", "#7570b3", \.p99), ("p99.9", "#e7298a", \.p999),
            ("max", "#666", \.max),
        ]
        for (index, (name, color, path)) in series.enumerated() {
            let coordinates = points.map { "\(x($0.rate)),\(y($0.latency[keyPath: path]))" }.joined(separator: " ")
            svg.append("<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>")
            for point in points {
                svg.append("<circle cx=\"\(x(point.rate))\" cy=\"\(y(point.latency[keyPath: path]))\" r=\"3\" fill=\"\(color)\"/>")
            }
            let legendY = top + 20 + Double(index) * 18
            svg.append("<line x1=\"\(left + plotWidth + 8)\" x2=\"\(left + plotWidth + 28)\" y1=\"\(legendY + 20)\" y2=\"\(legendY + 20)\" stroke=\"\(color)\" stroke-width=\"2\"/>")
            svg.append("<text x=\"\(left + plotWidth + 34)\" y=\"\(legendY + 24)\">\(name)</text>")
        }
        svg.append("<rect x=\"\(left)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(plotHeight)\" fill=\"none\" stroke=\"#333\"/>")
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e12 ? "\(Int(value))" : String(format: "%.1f", value)
    }

    static func ms(_ value: Double) -> String { String(format: value < 10 ? "%.2f" : "%.1f", value) }

    static func align(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
    }
}
