import HearthHub
import HearthModel
import HearthProto
import HearthWire
import SwiftProtobuf
import Synchronization

/// A driver speaking the real protocol over the wire, in the test process.
final class TestDriver: Sendable {
    /// How the driver answers a command or write: nil never answers (for deadline tests).
    typealias Responder = @Sendable (Hearth_V1_HubMessage) -> Hearth_V1_CommandResult?

    let outbound: AsyncStream<Hearth_V1_DriverMessage>.Continuation
    let inbound = Mutex<[Hearth_V1_HubMessage]>([])

    init(outbound: AsyncStream<Hearth_V1_DriverMessage>.Continuation) {
        self.outbound = outbound
    }

    func send(_ message: Hearth_V1_DriverMessage) { outbound.yield(message) }

    func report(_ device: String, endpoint: UInt32 = 1, trait: UInt32, _ attributes: [UInt32: Value]) {
        send(.with {
            $0.report.traits = [.with {
                $0.deviceID = device
                $0.endpoint = endpoint
                $0.traitID = trait
                $0.attributes = attributes.sorted { $0.key < $1.key }.map { id, value in
                    .with { $0.id = id; $0.value = value.proto }
                }
            }]
        })
    }

    /// Messages the hub sent so far (welcome, results, rejections, commands).
    var received: [Hearth_V1_HubMessage] { inbound.withLock { $0 } }
}

/// An OnOffLight with Identify and OnOff on endpoint 1.
func onOffLight(_ id: String, name: String = "Lamp", on: Bool = false) -> Hearth_V1_DeviceAnnouncement {
    .with {
        $0.id = id
        $0.suggestedName = name
        $0.isMatterDevice = true
        $0.types = [.with {
            $0.endpoint = 1
            $0.deviceTypeID = 0x0100
            $0.primary = true
            $0.traits = [
                .with { $0.traitID = 0x0003; $0.attributes = [.with { $0.id = 0; $0.value = Value.uint(0).proto }] },
                .with { $0.traitID = 0x0006; $0.attributes = [.with { $0.id = 0; $0.value = Value.bool(on).proto }]; $0.locality = .local },
            ]
        }]
    }
}

/// Connects a driver, says Hello, announces `devices` and waits for the hub's AnnounceResult, runs `body`,
/// then half-closes (the hub marks the devices offline).
func withTestDriver<T: Sendable>(
    _ client: HubClient, token: String = Tokens.lights, devices: [Hearth_V1_DeviceAnnouncement],
    respond: @escaping TestDriver.Responder = { message in
        // Succeeds with no response fields.
        switch message.kind {
        case .command(let command): .with { $0.correlationID = command.correlationID }
        case .write(let write): .with { $0.correlationID = write.correlationID }
        default: nil
        }
    },
    _ body: @escaping @Sendable (TestDriver) async throws -> T
) async throws -> T {
    let (stream, continuation) = AsyncStream<Hearth_V1_DriverMessage>.makeStream()
    let driver = TestDriver(outbound: continuation)
    let (announced, announcedSignal) = AsyncStream<Void>.makeStream()
    return try await client.wire.bidirectional(DriverMethods.connect, options: HubClient.options(token, timeout: nil)) {
        call in
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                for await message in stream { try await call.write(message) }
                call.finishRequests()
                return nil
            }
            group.addTask {
                // Also when the hub goes away before its AnnounceResult: the body must not wait forever.
                defer { announcedSignal.finish() }
                for try await message in call.responses {
                    driver.inbound.withLock { $0.append(message) }
                    switch message.kind {
                    case .announceResult: announcedSignal.yield()
                    case .command, .write:
                        if let result = respond(message) { driver.send(.with { $0.result = result }) }
                    default: break
                    }
                }
                return nil
            }
            driver.send(.with { $0.hello.driverID = "" })
            driver.send(.with { $0.announce.devices = devices })
            for await _ in announced { break }
            let result = try await body(driver)
            continuation.finish()
            while let next = try await group.next() { _ = next }
            return result
        }
    }
}
