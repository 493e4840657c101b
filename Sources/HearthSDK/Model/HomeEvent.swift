public import Foundation
public import HearthModel
import HearthProto
public import HearthTypes
public import OpenCombineShim

/// An event a device's trait raised (a doorbell press, a contact opening), with when it happened.
public struct HomeEvent<E: TraitEvent>: Sendable, Hashable {
    /// The event's fields, typed.
    public let event: E
    /// The device that raised it.
    public let deviceID: String
    /// The endpoint (device type instance) of the trait.
    public let endpoint: UInt32
    /// When the device says it happened.
    public let time: Date
    /// The hub's revision of the change that carried it (never decreasing; events reported together share one).
    public let revision: UInt64
}

extension HomeDevice {
    /// Each event of type `E` the device raises from now on: once each, in order, never coalesced.
    ///
    /// A subscriber that falls more than ``Home/Configuration/eventBacklog`` of this device's events behind
    /// is ended with `resourceExhausted` rather than losing events silently (other devices' events do not
    /// count).
    public func events<E: TraitEvent>(_ type: E.Type) -> AnyPublisher<HomeEvent<E>, HomeError> {
        FeedPublisher(
            home: types.home, keepsEvents: true, scope: id, interest: Self.eventInterest(id), render: Self.eventRender(id)).eraseToAnyPublisher()
    }

    /// ``events(_:)`` as an asynchronous sequence.
    public func eventUpdates<E: TraitEvent>(_ type: E.Type) -> HomeUpdates<HomeEvent<E>> {
        HomeUpdates(
            home: types.home, keepsEvents: true, scope: id, interest: Self.eventInterest(id), render: Self.eventRender(id))
    }

    /// Whether an update raised an event of this device.
    static func eventInterest(_ deviceID: String) -> FeedInterest {
        { _, delta in delta.events.contains { $0.deviceID == deviceID } }
    }

    static func eventRender<E: TraitEvent>(_ deviceID: String) -> FeedRender<HomeEvent<E>> {
        { _, _, delta in
            .values(delta.events.compactMap { event in
                guard event.deviceID == deviceID, event.traitID == E.OwnerTrait.traitID.rawValue,
                    event.eventID == E.id.rawValue,
                    let decoded = E(value: .struct(Value.fields(of: event.fields)))
                else { return nil }
                return HomeEvent(
                    event: decoded, deviceID: deviceID, endpoint: event.endpoint,
                    time: Date(timeIntervalSince1970: Double(event.timestampMs) / 1000), revision: event.revision)
            })
        }
    }
}
