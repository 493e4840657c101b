import Foundation
import HearthDriverKit
@testable import HearthLoad
import Histogram
import Testing

/// The load test's pieces without processes: the probe accounting, the open-loop schedule, the rate
/// search and the report's files.
@Suite struct LoadToolTests {
    @Test func trackerCountsDeliveriesCoalescingAndErrors() {
        var tracker = ProbeTracker()
        let at = { (seq: UInt64) in LoadProbe.Reading(seq: seq, sentAt: 1_000_000) }
        tracker.observe(device: "a", reading: at(3), state: 1, now: 2_000_000, isItem: true)  // baseline
        #expect(tracker.deliveries == 0)
        tracker.observe(device: "a", reading: at(4), state: 2, now: 3_000_000, isItem: true)
        tracker.observe(device: "a", reading: at(7), state: 3, now: 6_000_000, isItem: true)  // 5 and 6 coalesced
        tracker.observe(device: "a", reading: at(7), state: 3, now: 6_500_000, isItem: true)  // the same again
        tracker.observe(device: "a", reading: at(7), state: 4, now: 6_600_000, isItem: true)  // same seq, new state
        tracker.observe(device: "a", reading: at(6), state: 5, now: 7_000_000, isItem: true)  // older after newer
        #expect(tracker.deliveries == 2)
        #expect(tracker.coalesced == 2)
        #expect(tracker.duplicates == 1)
        #expect(tracker.intermediate == 1)
        #expect(tracker.regressions == 1)
        #expect(tracker.delays.totalCount == 2)
        #expect(tracker.delays.max >= 4_990 && tracker.delays.max <= 5_010)  // µs: 6 ms − 1 ms
        #expect(tracker.missing(expected: ["a": 7, "b": 1]) == ["b"])
        #expect(tracker.missing(expected: ["a": 8]) == ["a"])

        tracker.startPhase()
        #expect(tracker.deliveries == 0 && tracker.delays.totalCount == 0 && tracker.regressions == 0)
        tracker.observe(device: "a", reading: at(8), state: 6, now: 2_000_000, isItem: false)
        #expect(tracker.deliveries == 1)  // the baseline survived the new phase
        tracker.observe(device: "a", reading: at(8), state: 0, now: 2_000_000, isItem: false)
        #expect(tracker.duplicates == 0)  // unchanged devices in a whole-set emission are expected
    }

    @Test func openLoopScheduleIsFixedRateAndRoundRobinSeqsAddUp() {
        let schedule = OpenLoopSchedule(start: 1_000, rate: 4, seconds: 2.5)
        #expect(schedule.total == 10)
        #expect(schedule.due(0) == 1_000)
        #expect(schedule.due(3) == 1_000 + 750_000_000)
        #expect(schedule.dueCount(at: 999) == 0)
        #expect(schedule.dueCount(at: 1_000) == 1)
        #expect(schedule.dueCount(at: 1_000 + 500_000_000) == 3)
        #expect(schedule.dueCount(at: 1_000 + 60_000_000_000) == 10)
        let seqs = (0..<7).map { OpenLoopSchedule.expectedSeq(index: $0, devices: 7, reports: 23) }
        #expect(seqs == [4, 4, 3, 3, 3, 3, 3])
        #expect(seqs.reduce(0, +) == 23)
    }

    @Test func rateSearchDoublesThenBisects() {
        var plan = LoadPlan.presets["home"]!
        plan.startRate = 100
        plan.maxRate = 10_000
        plan.refineSteps = 2
        var search = RateSearch(plan: plan)
        var tried: [Double] = []
        while let rate = search.next, tried.count < 20 {
            tried.append(rate)
            search.record(rate, passed: rate <= 500)
        }
        #expect(tried == [100, 200, 400, 800, 600, 500])
        #expect(search.bestRate == 500)

        plan.rates = [300, 100]
        var fixed = RateSearch(plan: plan)
        var given: [Double] = []
        while let rate = fixed.next {
            given.append(rate)
            fixed.record(rate, passed: false)
        }
        #expect(given == [300, 100])
        #expect(fixed.bestRate == nil)
    }

    @Test func mixHasEveryFamilyAProbeAndStableIDs() {
        let devices = LoadMix.devices(count: 50, driver: 3)
        #expect(devices.count == 50)
        #expect(Set(devices.map(\.id)).count == 50)
        #expect(devices.map(\.id) == LoadMix.devices(count: 50, driver: 3).map(\.id))
        let changes = Set(devices.map { "\($0.change)".prefix(5) })
        #expect(changes.count >= 6)  // lights, plugs and several climate kinds
        #expect(devices.allSatisfy { $0.description.endpoints[0].traits.contains { $0.traitID == LoadProbe.traitID } })
        #expect(devices.filter(\.hasOnOff).count == 30)
    }

    @Test func reportRendersTableJSONAndPlot() throws {
        var histogram = Histogram<UInt64>.delays()
        for value in 1...1000 { _ = histogram.record(UInt64(value * 10)) }
        let latency = Percentiles(histogram)
        #expect(latency.count == 1000)
        #expect(abs(latency.p50 - 5) < 0.1 && abs(latency.p99 - 9.9) < 0.1)
        let phase = { (rate: Double, passed: Bool) in
            PhaseReport(
                kind: "rate", rate: rate, sent: Int(rate) * 2, driverErrors: 0, driverMaxLagMs: 0.5, latency: latency,
                deliveriesPerSecond: rate * 4, coalesced: 0, gaps: passed ? 0 : 3, duplicates: 0, regressions: 0,
                hubCPUPercent: 40, hubMemoryMiB: 60, passed: passed, stalledClient: nil)
        }
        let report = LoadReport(
            plan: LoadPlan.presets["small"]!, cores: 2, hubStartSeconds: 0.2, registerSeconds: 0.5,
            firstListSeconds: ["batched-1": 0.1], phases: [phase(100, true), phase(400, false)], commands: nil,
            maxSustainedRate: 100, hubPeakMemoryMiB: 70, clientFailures: [:], clientFootprint: nil, peerListSeconds: nil)
        #expect(!report.clean)  // the second phase lost updates
        #expect(report.table.contains("result: FAILED"))
        #expect(report.table.contains("highest rate with p99 < 50 ms and nothing lost: 100 reports/s"))
        let decoded = try JSONDecoder().decode(LoadReport.self, from: JSONEncoder().encode(report))
        #expect(decoded == report)
        let svg = report.svg
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n"))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 5)  // p50, p90, p99, p99.9, max
        #expect(!svg.contains("nan") && !svg.contains("inf"))
    }
}
