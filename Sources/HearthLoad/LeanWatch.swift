import HearthModel
import HearthProto
import HearthWire
import Synchronization

/// What a client's deliveries are counted into, shared by the client and its lean watch stream.
final class Tracking: Sendable {
    let tracker = Mutex(ProbeTracker())
    /// Why the client stopped receiving, if it did.
    let failure = Mutex<String?>(nil)

    func fail(_ reason: String) { failure.withLock { $0 = $0 ?? reason } }
}

/// A `watch` client: one raw `Watch` stream decoded with the generated messages and nothing else (no
/// cache, no publishers). It measures what the hub's fan-out delivers when the client costs next to
/// nothing, beside the HearthSDK clients that show what a Swift program built on the SDK sees.
final class LeanWatch: Sendable {
    private let client: WireClient
    private let task: Task<Void, Never>

    /// Connects, watches from 0 and returns once the snapshot is complete.
    init(address: String, token: String, tracking: Tracking) async throws {
        guard let target = WireClient.Target(address: address) else {
            throw LoadError("the hub address must be host:port or unix:/path, got '\(address)'")
        }
        let client = WireClient(target: target)
        self.client = client
        let (synced, syncedSignal) = AsyncStream<Void>.makeStream()
        var metadata = Metadata()
        metadata.add("authorization", "Bearer \(token)")
        let options = CallOptions(timeout: nil, metadata: metadata)
        task = Task {
            do {
                try await client.serverStreaming(HomeMethods.watch, request: .init(), options: options) { responses in
                    for try await response in responses {
                        let now = LoadProbe.now()
                        tracking.tracker.withLock { tracker in
                            for change in response.changes {
                                guard let (id, reading) = Self.reading(change) else { continue }
                                tracker.observe(device: id, reading: reading, state: 0, now: now, isItem: false)
                            }
                        }
                        if response.synced { syncedSignal.yield() }
                    }
                }
                tracking.fail("the watch stream ended")
            } catch {
                if !Task.isCancelled { tracking.fail("\(error)") }
            }
            syncedSignal.finish()
        }
        for await _ in synced { return }
        task.cancel()
        client.close()
        throw LoadError("the watch stream ended before its snapshot: \(tracking.failure.withLock { $0 ?? "no reason" })")
    }

    /// The probe's values in a change: a whole device (snapshot, connectivity) or the probe trait's new state.
    static func reading(_ change: Hearth_V1_Change) -> (String, LoadProbe.Reading)? {
        switch change.kind {
        case .device(let device):
            for type in device.types {
                for trait in type.traits where trait.traitID == LoadProbe.traitID.rawValue {
                    if let reading = reading(trait) { return (device.id, reading) }
                }
            }
            return nil
        case .trait(let trait) where trait.state.traitID == LoadProbe.traitID.rawValue:
            return reading(trait.state).map { (trait.deviceID, $0) }
        default:
            return nil
        }
    }

    private static func reading(_ state: Hearth_V1_TraitState) -> LoadProbe.Reading? {
        var seq: UInt64?
        var sentAt: UInt64?
        for attribute in state.attributes {
            switch attribute.id {
            case LoadProbe.seq.rawValue: seq = attribute.value.uintValue
            case LoadProbe.sentAt.rawValue: sentAt = attribute.value.uintValue
            default: break
            }
        }
        guard let seq, let sentAt else { return nil }
        return LoadProbe.Reading(seq: seq, sentAt: sentAt)
    }

    func close() {
        task.cancel()
        client.close()
    }
}
