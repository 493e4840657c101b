public import HearthDriverKit
public import HearthModel
public import ServiceLifecycle
import Synchronization

/// The simulated cloud link of a driver's remote (cloud-routed) traits: when it is cut, those traits are
/// reported offline while the local ones stay online, so clients see `partiallyOnline` and `mixed`
/// locality; when it is back, they are reported online again.
///
/// Register remote traits with ``add(_:trait:endpoint:)``; run it as a service to get the outages of
/// `--cloud-outage-every`, or call ``set(up:)`` yourself.
public final class CloudLink: Service, Sendable {
    struct Remote: Sendable {
        var device: DriverDevice
        var trait: TraitID
        var endpoint: UInt32?
    }

    private struct State {
        var up = true
        var remotes: [Remote] = []
        /// The endpoints registered per "device#trait" (nil: any), so reachability is one lookup.
        var index: [String: [UInt32?]] = [:]
    }

    private let state = Mutex(State())
    let every: Duration?
    let length: Duration

    /// A link cut for `length` every `every` (nil: never by itself).
    public init(every: Duration?, length: Duration) {
        self.every = every
        self.length = length
    }

    /// The link of `--cloud-outage-every` / `--cloud-outage-length`.
    public convenience init(_ options: SimulatorOptions) {
        self.init(
            every: options.cloudOutageEvery > 0 ? .milliseconds(Int(options.cloudOutageEvery * 1000)) : nil,
            length: .milliseconds(Int(options.cloudOutageLength * 1000)))
    }

    /// Whether the link is up now.
    public var isUp: Bool { state.withLock { $0.up } }

    /// Whether a device's trait can be reached now: false only for a registered remote trait while the link
    /// is cut. Simulations hold back their reports; HearthDriverKit refuses commands and writes to such traits
    /// (the link marks them offline).
    public func isReachable(device: String, trait: TraitID, endpoint: UInt32) -> Bool {
        state.withLock { s in
            s.up || !(s.index["\(device)#\(trait.rawValue)"] ?? []).contains { $0 == nil || $0 == endpoint }
        }
    }

    /// Registers a remote trait of a device; it follows the link from now on.
    public func add(_ device: DriverDevice, trait: TraitID, endpoint: UInt32? = nil) {
        let up = state.withLock { s in
            s.remotes.append(Remote(device: device, trait: trait, endpoint: endpoint))
            s.index["\(device.id)#\(trait.rawValue)", default: []].append(endpoint)
            return s.up
        }
        if !up { try? device.setConnectivity(.offline, trait: trait, endpoint: endpoint) }
    }

    /// Cuts (`false`) or restores (`true`) the link and reports the remote traits' connectivity.
    public func set(up: Bool) {
        let remotes = state.withLock { s -> [Remote] in
            guard s.up != up else { return [] }
            s.up = up
            return s.remotes
        }
        for remote in remotes {
            try? remote.device.setConnectivity(up ? .online : .offline, trait: remote.trait, endpoint: remote.endpoint)
        }
    }

    public func run() async throws {
        guard let every else {
            try? await gracefulShutdown()
            return
        }
        // Returns (rather than throws) when cancelled, so that graceful shutdown does not fail the group.
        await cancelWhenGracefulShutdown {
            while true {
                do { try await Task.sleep(for: every) } catch { return }
                self.set(up: false)
                do { try await Task.sleep(for: self.length) } catch { return }
                self.set(up: true)
            }
        }
    }
}
