import HearthCameraSim
import HearthTypes
import Testing

@Suite("Push transports: find, modify, status, triggers, events")
struct PushTransportsTests {
    typealias Trait = Google.PushAvStreamTransportTrait
    let t0 = ContinuousClock.now

    static func options(_ usage: Trait.StreamUsageEnum = .recording, trigger: Trait.TransportTriggerTypeEnum = .motion)
        -> Trait.TransportOptionsStruct
    {
        CameraProfile.options(id: "camera-0", usage: usage, trigger: trigger, sensitivity: 5, maxDuration: 30)
    }

    func transports() -> PushTransports {
        PushTransports(connections: [
            .init(connectionID: 2, transportStatus: .inactive, transportOptions: Self.options(.analysis, trigger: .command)),
            .init(connectionID: 1, transportStatus: .active, transportOptions: Self.options()),
        ])
    }

    @Test("find returns all connections by id, or one; an unknown id is NOT_FOUND")
    func find() throws {
        let transports = transports()
        #expect(try transports.find(nil).map(\.connectionID) == [1, 2])
        #expect(try transports.find(2) == [.init(connectionID: 2, transportStatus: .inactive, transportOptions: Self.options(.analysis, trigger: .command))])
        #expect(try #require(throws: CameraError.self) { try transports.find(9) }.code == .notFound)
    }

    @Test("modify replaces the whole options struct; an active connection made continuous starts pushing; bad options and unknown ids are refused")
    func modify() throws {
        var transports = transports()
        var options = Self.options(.analysis, trigger: .continuous)
        options.url = "https://elsewhere.example/upload"
        options.triggerOptions.motionSensitivity = nil
        #expect(try transports.modify(1, options: options) == [.begin(.init(connectionID: 1, triggerType: .continuous))])
        #expect(transports.isPushing(1))
        #expect(try transports.find(1)[0].transportOptions == options)
        // While it pushes, changing it is refused (BUSY in Matter); inactive, it can change again.
        #expect(try #require(throws: CameraError.self) { try transports.modify(1, options: options) }.code == .failedPrecondition)
        _ = try transports.setStatus(.inactive, id: 1)
        #expect(try #require(throws: CameraError.self) { try transports.modify(7, options: options) }.code == .notFound)

        var plain = options
        plain.url = "http://insecure.example/upload"
        #expect(try #require(throws: CameraError.self) { try transports.modify(1, options: plain) }.code == .invalidArgument)
        var chunky = options
        chunky.containerOptions.cmafContainerOptions?.chunkDuration = 3000
        #expect(try #require(throws: CameraError.self) { try transports.modify(1, options: chunky) }.code == .invalidArgument)
        #expect(try transports.find(1)[0].transportOptions == options, "refused options change nothing")
    }

    @Test("modify may leave out the sub-structures the rules require: absent keeps the current ones; absent from both is refused")
    func modifyOneField() throws {
        var transports = transports()
        _ = try transports.setStatus(.inactive, id: 1)
        let current = try transports.find(1)[0].transportOptions!
        // The camera guide's way: rebuild the options with one field changed, optional sub-structures left out.
        var sensitivity = current
        sensitivity.triggerOptions = .init(triggerType: .motion, motionSensitivity: 9)
        sensitivity.containerOptions = .init(containerType: .cmaf)
        #expect(try transports.modify(1, options: sensitivity).isEmpty)
        let changed = try #require(try transports.find(1)[0].transportOptions)
        #expect(changed.triggerOptions.motionSensitivity == 9)
        #expect(changed.triggerOptions.motionTimeControl == current.triggerOptions.motionTimeControl)
        #expect(changed.containerOptions.cmafContainerOptions == current.containerOptions.cmafContainerOptions)
        #expect(changed.triggerOptions.maxPreRollLen == nil, "what is not required is replaced, as Matter says")

        // A present sub-structure is used as given, and still checked.
        var longer = changed
        longer.triggerOptions.motionTimeControl?.maxDuration = 120
        _ = try transports.modify(1, options: longer)
        #expect(try transports.find(1)[0].transportOptions?.triggerOptions.motionTimeControl?.maxDuration == 120)
        var chunky = changed
        chunky.containerOptions.cmafContainerOptions?.chunkDuration = 3000
        let error = try #require(throws: CameraError.self) { try transports.modify(1, options: chunky) }
        #expect(error.code == .invalidArgument && error.message.contains("chunkDuration"))

        // Connection 2 is a command trigger: made a motion trigger without motionTimeControl, there is none
        // to keep, so the rule still refuses it with its precise message.
        var second = try #require(try transports.find(2)[0].transportOptions)
        second.triggerOptions = .init(triggerType: .motion)
        var noControl = PushTransports(connections: [.init(connectionID: 2, transportStatus: .inactive, transportOptions: nil)])
        let refused = try #require(throws: CameraError.self) { try noControl.modify(2, options: second) }
        #expect(refused.code == .invalidArgument && refused.message == "a motion trigger needs motionTimeControl")
    }

    @Test("setTransportStatus for all or one connection; recording while any is active")
    func status() throws {
        var transports = transports()
        #expect(transports.isRecording)
        #expect(try transports.setStatus(.inactive, id: nil).isEmpty)
        #expect(!transports.isRecording)
        #expect(transports.connections.map(\.transportStatus) == [.inactive, .inactive])
        _ = try transports.setStatus(.active, id: 2)
        #expect(transports.connections.map(\.transportStatus) == [.inactive, .active])
        #expect(transports.isRecording)
        #expect(try #require(throws: CameraError.self) { try transports.setStatus(.active, id: 5) }.code == .notFound)
    }

    @Test("a continuous connection pushes while active: begin on activation, end on deactivation")
    func continuous() throws {
        var transports = PushTransports(connections: [
            .init(connectionID: 1, transportStatus: .inactive, transportOptions: Self.options(trigger: .continuous))
        ])
        #expect(try transports.setStatus(.active, id: 1) == [.begin(.init(connectionID: 1, triggerType: .continuous))])
        #expect(transports.isPushing(1))
        #expect(try #require(throws: CameraError.self) { try transports.modify(1, options: Self.options()) }.code == .failedPrecondition)
        #expect(try transports.setStatus(.inactive, id: 1) == [.end(.init(connectionID: 1))])
        #expect(!transports.isPushing(1))
    }

    @Test("a manual trigger pushes for the initial duration, then the clock ends it")
    func trigger() throws {
        var transports = transports()
        let control = Trait.TransportMotionTriggerTimeControlStruct(
            initialDuration: 20, augmentationDuration: 0, maxDuration: 30, blindDuration: 0)
        let begin = try transports.trigger(1, reason: .userInitiated, timeControl: control, now: t0)
        #expect(begin == [.begin(.init(connectionID: 1, triggerType: .command, activationReason: .userInitiated))])
        #expect(try transports.trigger(1, reason: .automation, timeControl: nil, now: t0).isEmpty, "already pushing: lengthened")
        #expect(transports.endPushes(now: t0 + .seconds(19)).isEmpty)
        #expect(transports.endPushes(now: t0 + .seconds(20)) == [.end(.init(connectionID: 1))])
        _ = try transports.trigger(1, reason: .emergency, timeControl: nil, now: t0 + .seconds(30))
        #expect(transports.endPushes(now: t0 + .seconds(39)).isEmpty)
        #expect(transports.endPushes(now: t0 + .seconds(40)) == [.end(.init(connectionID: 1))], "10 s from the options' time control")
        #expect(!transports.isPushing(1))
        #expect(try #require(throws: CameraError.self) { try transports.trigger(2, reason: .userInitiated, timeControl: nil, now: t0) }.code
            == .failedPrecondition, "inactive")
    }

    @Test("allocate adds an inactive connection with the next id up to the limit; deallocate removes it")
    func allocate() throws {
        var transports = transports()
        transports.limit = 3
        let added = try transports.allocate(Self.options(.analysis, trigger: .command))
        #expect(added.connectionID == 3 && added.transportStatus == .inactive)
        #expect(try #require(throws: CameraError.self) { try transports.allocate(Self.options()) }.code == .resourceExhausted)
        #expect(try transports.deallocate(3).isEmpty)
        #expect(transports.connections.map(\.connectionID) == [1, 2])
        #expect(try #require(throws: CameraError.self) { try transports.deallocate(3) }.code == .notFound)
    }
}
