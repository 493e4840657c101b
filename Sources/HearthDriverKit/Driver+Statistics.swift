import Metrics
import Synchronization

extension Driver {
    /// What a driver has counted since it was made: how much of what it reported reached the queue for the
    /// hub, and how much was coalesced or dropped there.
    ///
    /// Reports wait in a queue of pending values, one per attribute, until the next write takes them. A value
    /// reported again before that write replaces the one waiting (the hub gets the newest, never a backlog):
    /// under back-pressure (a slow hub, a slow link, or a device that reports faster than the batch window)
    /// ``valuesSuperseded`` grows. Events are never coalesced; past the queue's bound the oldest are dropped
    /// and counted in ``eventsDropped``.
    ///
    /// The same figures are exported through swift-metrics as counters, with a `driver` dimension when
    /// ``Configuration/driverID`` is set: `hearth_driver_values_queued_total`,
    /// `hearth_driver_values_superseded_total` and `hearth_driver_events_dropped_total`. They cost nothing
    /// unless the program bootstraps a metrics backend (`MetricsSystem.bootstrap`).
    public struct Statistics: Sendable, Hashable {
        /// Attribute values that changed and were queued for the hub (a report of an unchanged value, or
        /// while disconnected, queues nothing: the next connection announces the current values).
        public var valuesQueued = 0
        /// Queued values replaced by a newer value of the same attribute before they were sent: reported,
        /// but never seen by the hub.
        public var valuesSuperseded = 0
        /// Events dropped, oldest first, because more waited than the queue keeps.
        public var eventsDropped = 0

        public init() {}
    }

    /// The driver's counts so far (one short lock).
    public var statistics: Statistics { store.totals }
}

/// The driver's swift-metrics counters, advanced after each drain of the queue by what changed since the last.
final class DriverMetrics: Sendable {
    private let queued: Counter
    private let superseded: Counter
    private let dropped: Counter
    /// The totals as last exported.
    private let exported = Mutex(Driver.Statistics())

    /// Counters made by `factory`: by default the backend the program bootstrapped (none: they do nothing).
    init(driverID: String, factory: any MetricsFactory = MetricsSystem.factory) {
        let dimensions = driverID.isEmpty ? [] : [("driver", driverID)]
        queued = Counter(label: "hearth_driver_values_queued_total", dimensions: dimensions, factory: factory)
        superseded = Counter(label: "hearth_driver_values_superseded_total", dimensions: dimensions, factory: factory)
        dropped = Counter(label: "hearth_driver_events_dropped_total", dimensions: dimensions, factory: factory)
    }

    /// Advances the counters to `totals`.
    func export(_ totals: Driver.Statistics) {
        let last = exported.withLock { last in
            defer { last = totals }
            return last
        }
        let counts: [(Counter, KeyPath<Driver.Statistics, Int>)] = [
            (queued, \.valuesQueued), (superseded, \.valuesSuperseded), (dropped, \.eventsDropped),
        ]
        for (counter, count) in counts where totals[keyPath: count] > last[keyPath: count] {
            counter.increment(by: totals[keyPath: count] - last[keyPath: count])
        }
    }
}
