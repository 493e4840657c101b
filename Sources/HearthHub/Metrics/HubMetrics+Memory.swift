import Prometheus
#if canImport(Glibc)
import CMalloc
#endif

/// What holds the hub's memory, read when the page is rendered: the heap as malloc sees it, the retained
/// change log, and the store's own caches. `Docs/Scaling.md` reads a device's share from these.
struct MemoryFigures: Sendable {
    /// Bytes malloc has handed out and not had back (glibc: `uordblks` + `hblkhd`).
    var heapInUse: Int
    /// Bytes malloc holds free in its arenas (`fordblks`): RSS that ``MemoryTrimmer`` can give back.
    var heapFree: Int
    var changeLogEntries: Int
    var changeLogBytes: Int
    var storeBytes: Int

    /// The figures now.
    static func current(engine: HubEngine) -> MemoryFigures {
        let log = engine.changeLog.size
        var figures = MemoryFigures(
            heapInUse: 0, heapFree: 0, changeLogEntries: log.entries, changeLogBytes: log.bytes,
            storeBytes: engine.store.memoryBytes)
        #if canImport(Glibc)
        let info = mallinfo2()
        figures.heapInUse = Int(info.uordblks + info.hblkhd)
        figures.heapFree = Int(info.fordblks)
        #endif
        return figures
    }
}

extension HubMetrics {
    /// Sets the memory gauges; called at render.
    func refresh(memory: MemoryFigures) {
        let gauges: [(String, String, String, Int)] = [
            ("memory_heap_in_use", "bytes", "Heap bytes in use (malloc's view).", memory.heapInUse),
            ("memory_heap_free", "bytes", "Heap bytes malloc holds free, returnable to the system.", memory.heapFree),
            ("change_log_entries", "", "Changes retained for resuming watchers.", memory.changeLogEntries),
            ("change_log", "bytes", "Memory the retained changes hold (bounded by retained_changes_mib).", memory.changeLogBytes),
            ("store_memory", "bytes", "Memory the store (SQLite) holds for caches and statements.", memory.storeBytes),
        ]
        for (metric, unit, help, value) in gauges {
            registry.makeGauge(
                descriptor: MetricNameDescriptor(namespace: "hearth", metricName: metric, unitName: unit, helpText: help)
            ).set(Double(value))
        }
    }
}
