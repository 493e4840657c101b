import Foundation
import HearthCameraSim
import HearthDriverKit
import HearthModel
import HearthProto
import HearthSimulator
import HearthTesting
import HearthTypes
import HearthWire
import Testing

/// `hearthctl camera …` as a script would run it, against a real hub with the camera simulation (and a lamp,
/// to have a device that is not a camera).
@Suite("hearthctl camera against a real hub")
struct HearthctlCameraTests {
    typealias Transport = Google.PushAvStreamTransportTrait

    /// Runs hearthctl with `input` on its standard input.
    static func hearthctl(
        _ port: Int, _ arguments: [String], input: String? = nil, token: String = Tokens.admin
    ) async throws -> (Int32?, String) {
        let outcome = try await ChildProcessIO.run(
            builtProduct("hearthctl"), arguments + ["--hub", "127.0.0.1:\(port)", "--token", token],
            input: input.map { Data($0.utf8) }, timeout: .seconds(60))
        return (outcome.status, outcome.output)
    }

    /// A hub with three simulated cameras (camera-0, doorbell-1, camera-2; sessions of 120 s) and the lamp
    /// `lights/lamp` ("Desk lamp"); `body` gets the hub's port, the client, the simulation and a folder.
    static func withCameraHome(_ body: (Int, HubClient, CameraSimulation, URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                try await withCameraSimulation(client, configure: { $0.liveSessionSeconds = 120 }) { simulation in
                    let lights = Driver.lights(.tcp(host: "127.0.0.1", port: client.port))
                    lights.add(dimmableLight("lamp", name: "Desk lamp"))
                    try await withDriver(lights) {
                        for id in ["camera/camera-0", "camera/doorbell-1", "lights/lamp"] {
                            try await client.waitForDevice(id) { $0.connectivity == .online }
                        }
                        try await body(client.port, client, simulation, dir)
                    }
                }
            }
        }
    }

    /// The value after `prefix` on the first line that starts with it.
    static func line(_ prefix: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test("live-view start (offer from a file or stdin, table or JSON), extend, talkback start/stop, stop")
    func liveView() async throws {
        try await Self.withCameraHome { port, _, simulation, dir in
            let offerFile = dir.appendingPathComponent("offer.sdp")
            try ExampleOffer.chrome().write(to: offerFile, atomically: true, encoding: .utf8)

            let (started, text) = try await Self.hearthctl(
                port, ["camera", "live-view", "start", "camera/camera-0", "--offer-file", offerFile.path])
            #expect(started == 0, "\(text)")
            let session = try #require(Self.line("session: ", in: text), "\(text)")
            #expect(Self.line("duration: ", in: text) == "120 s", "\(text)")
            let answerText = try #require(text.range(of: "answer:\n").map { String(text[$0.upperBound...]) }, "\(text)")
            #expect(answerText.hasSuffix("\r\n") && !answerText.hasSuffix("\r\n\n"), "the answer as sent, no blank line after")
            let answer = try SessionDescription(parsing: answerText)
            #expect(answer.media.map(\.kind) == ["audio", "video", "application"], "\(answerText)")
            #expect(simulation.liveSessions("camera-0").map(\.id) == [session])

            // From standard input, to a doorbell named by name, as JSON.
            let doorbell = simulation.profiles[1].name
            let (piped, json) = try await Self.hearthctl(
                port, ["camera", "live-view", "start", doorbell, "--offer-file", "-", "--json"], input: ExampleOffer.chrome())
            #expect(piped == 0, "\(json)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
            let talk = try #require(object["mediaSessionId"] as? String)
            #expect(object["liveSessionDurationSeconds"] as? Int == 120)
            #expect(try SessionDescription(parsing: try #require(object["answerSdp"] as? String)).media.count == 3)
            #expect(simulation.liveSessions("doorbell-1").map(\.id) == [talk])

            // The answer to a file.
            let answerFile = dir.appendingPathComponent("answer.sdp")
            let (filed, summary) = try await Self.hearthctl(
                port, ["camera", "live-view", "start", "camera/camera-2", "--offer-file", offerFile.path, "--answer-file", answerFile.path])
            #expect(filed == 0 && !summary.contains("answer:"), "\(summary)")
            #expect(try SessionDescription(parsing: String(contentsOf: answerFile, encoding: .utf8)).media.count == 3)

            let (extended, extendOutput) = try await Self.hearthctl(port, ["camera", "live-view", "extend", "camera/camera-0", session])
            #expect(extended == 0 && extendOutput == "duration: 120 s\n", "\(extendOutput)")
            let (_, extendJSON) = try await Self.hearthctl(port, ["camera", "live-view", "extend", doorbell, talk, "--json"])
            #expect(extendJSON.contains(#""liveSessionDurationSeconds" : 120"#), "\(extendJSON)")

            #expect(try await Self.hearthctl(port, ["camera", "talkback", "start", "camera/doorbell-1", talk]) == (0, ""))
            #expect(simulation.liveSessions("doorbell-1").first?.talking == true)
            let (again, refused) = try await Self.hearthctl(port, ["camera", "talkback", "start", "camera/doorbell-1", talk])
            #expect(again == 9 && refused.contains("hearthctl: failedPrecondition: talkback is already on"), "\(refused)")
            #expect(try await Self.hearthctl(port, ["camera", "talkback", "stop", "camera/doorbell-1", talk]) == (0, ""))
            #expect(simulation.liveSessions("doorbell-1").first?.talking == false)
            let (notOn, stopRefused) = try await Self.hearthctl(port, ["camera", "talkback", "stop", "camera/doorbell-1", talk])
            #expect(notOn == 9 && stopRefused.contains("talkback is not on"), "\(stopRefused)")

            #expect(try await Self.hearthctl(port, ["camera", "live-view", "stop", "camera/camera-0", session]) == (0, ""))
            #expect(simulation.liveSessions("camera-0").isEmpty)
        }
    }

    @Test("transports lists, allocates, activates, deactivates and removes push transports")
    func transports() async throws {
        try await Self.withCameraHome { port, client, simulation, _ in
            let configured = simulation.profiles[0].transports
            let (listed, table) = try await Self.hearthctl(port, ["camera", "transports", "camera/camera-0"])
            #expect(listed == 0 && table.hasPrefix("ID"), "\(table)")
            for connection in configured {
                #expect(table.contains(connection.transportOptions?.url ?? "?"), "\(table)")
            }
            let (_, json) = try await Self.hearthctl(port, ["camera", "transports", "list", "camera/camera-0", "--json"])
            let all = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]], "\(json)")
            #expect(all.map { $0["connectionId"] as? Int } == configured.map { Int($0.connectionID) })

            let url = "https://ingest.hearth.example/cli-test"
            let (allocated, idText) = try await Self.hearthctl(
                port, ["camera", "transports", "allocate", "camera/camera-0", "--url", url, "--trigger", "command"])
            #expect(allocated == 0, "\(idText)")
            let id = try #require(UInt16(idText.trimmingCharacters(in: .whitespacesAndNewlines)), "\(idText)")
            #expect(!configured.map(\.connectionID).contains(id))

            /// The hub's view of the new connection, once it matches `status` (nil: once it is gone).
            func expectHub(_ status: Transport.TransportStatusEnum?) async throws {
                try await client.waitForDevice("camera/camera-0") { device in
                    let connection = device.typedAttributes(Transport.self)?.currentConnections?.first { $0.connectionID == id }
                    return connection?.transportStatus == status && (status == nil || connection?.transportOptions?.url == url)
                }
            }
            try await expectHub(.inactive)
            #expect(try await Self.hearthctl(port, ["camera", "transports", "activate", "camera/camera-0", "\(id)"]) == (0, ""))
            try await expectHub(.active)
            let (_, one) = try await Self.hearthctl(port, ["camera", "transports", "camera/camera-0", "--connection", "\(id)", "--json"])
            #expect(one.contains(#""status" : "active""#) && one.contains(#""trigger" : "command""#), "\(one)")
            #expect(try await Self.hearthctl(port, ["camera", "transports", "deactivate", "camera/camera-0", "\(id)"]) == (0, ""))
            try await expectHub(.inactive)
            #expect(try await Self.hearthctl(port, ["camera", "transports", "remove", "camera/camera-0", "\(id)"]) == (0, ""))
            try await expectHub(nil)
        }
    }

    @Test("failures exit with the documented codes and say why: no such device, not a camera, bad offers, unknown sessions and connections, offline")
    func failures() async throws {
        try await Self.withCameraHome { port, client, simulation, dir in
            let offer = dir.appendingPathComponent("offer.sdp")
            try ExampleOffer.chrome().write(to: offer, atomically: true, encoding: .utf8)
            let start = ["camera", "live-view", "start"]
            let cases: [([String], String?, String, Int32, String)] = [
                (start + ["no such camera", "--offer-file", offer.path], nil, Tokens.admin, 3, "notFound: no device 'no such camera'"),
                (start + ["Desk lamp", "--offer-file", offer.path], nil, Tokens.admin, 4,
                 "invalidArgument: Desk lamp (lights/lamp) is not a camera: it has no WebRtcLiveView trait"),
                (start + ["camera/camera-0"], nil, Tokens.admin, 4, "the offer is empty (standard input)"),
                (start + ["camera/camera-0", "--offer-file", dir.appendingPathComponent("missing.sdp").path], nil, Tokens.admin, 4,
                 "cannot read the offer file"),
                (start + ["camera/camera-0", "--offer-file", "-"], "hello, camera", Tokens.admin, 4, "malformed line at line 1"),
                (start + ["camera/camera-0"], "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n", Tokens.admin, 4, "no media"),
                (["camera", "live-view", "extend", "camera/camera-0", "lv-unknown"], nil, Tokens.admin, 3,
                 "notFound: no live media session lv-unknown"),
                (["camera", "live-view", "stop", "camera/camera-0", "lv-unknown"], nil, Tokens.admin, 3, "no live media session lv-unknown"),
                (["camera", "live-view", "extend", "lights/lamp", "lv-1"], nil, Tokens.admin, 4, "is not a camera"),
                (["camera", "talkback", "start", "camera/doorbell-1", "lv-unknown"], nil, Tokens.admin, 3, "no live media session"),
                (["camera", "talkback", "stop", "no such camera", "lv-1"], nil, Tokens.admin, 3, "no device 'no such camera'"),
                (["camera", "transports", "Desk lamp"], nil, Tokens.admin, 4, "is not a camera: it has no PushAvStreamTransport trait"),
                (["camera", "transports", "no such camera"], nil, Tokens.admin, 3, "no device"),
                (["camera", "transports", "camera/camera-0", "--connection", "999"], nil, Tokens.admin, 3, "no push connection 999"),
                (["camera", "transports", "remove", "camera/camera-0", "999"], nil, Tokens.admin, 3, "no push connection 999"),
                (["camera", "transports", "activate", "camera/camera-0", "999"], nil, Tokens.admin, 3, "no push connection 999"),
                (["camera", "transports", "allocate", "camera/camera-0", "--url", "http://ingest.hearth.example/x"], nil, Tokens.admin, 4,
                 "the ingest url must be https://"),
                (["camera", "transports", "allocate", "camera/camera-0", "--url", "https://x"], nil, Tokens.admin, 4, "invalidArgument"),
                (["camera", "transports", "allocate", "camera/camera-0", "--url", "https://ingest.hearth.example/x", "--chunk-ms", "3000"],
                 nil, Tokens.admin, 4, "chunkDuration must be at most half of segmentDuration"),
                (["camera", "live-view", "stop", "camera/camera-0", "lv-1"], nil, Tokens.viewer, 5, "permissionDenied"),
                (["camera", "transports", "camera/camera-0"], nil, "wrong-token", 6, "unauthenticated"),
            ]
            for (arguments, input, token, code, message) in cases {
                let (status, output) = try await Self.hearthctl(port, arguments, input: input, token: token)
                #expect(status == code, "\(arguments): \(output)")
                #expect(output.hasPrefix("hearthctl: ") && output.contains(message), "\(arguments): \(output)")
            }
            // Nothing above made a session.
            #expect(simulation.heldSessions("camera-0") == 0)

            // The camera's cloud link is down: its platform traits are offline and commands are unavailable.
            simulation.cloud.set(up: false)
            try await client.waitForDevice("camera/camera-0") {
                $0.trait(Google.WebRtcLiveViewTrait.traitID.rawValue)?.connectivity == .offline
            }
            let (status, output) = try await Self.hearthctl(port, start + ["camera/camera-0", "--offer-file", offer.path])
            #expect(status == 7 && output.hasPrefix("hearthctl: unavailable: "), "\(output)")
        }
    }

    @Test("a usage error (a missing session) exits 64 with the usage on standard error, before any hub is asked")
    func usage() async throws {
        let outcome = try await ChildProcessIO.run(
            builtProduct("hearthctl"), ["camera", "live-view", "stop", "camera/camera-0", "--hub", "127.0.0.1:1"],
            timeout: .seconds(30))
        #expect(outcome.status == 64, "\(outcome.output)")
        #expect(outcome.output.contains("Missing expected argument '<session>'"), "\(outcome.output)")
    }

    @Test("the completion scripts know the camera subcommands")
    func completions() async throws {
        let outcome = try await ChildProcessIO.run(builtProduct("hearthctl"), ["--generate-completion-script", "bash"], timeout: .seconds(30))
        #expect(outcome.status == 0)
        for word in ["camera", "live-view", "talkback", "transports", "allocate", "--offer-file"] {
            #expect(outcome.output.contains(word), "the bash script lacks \(word)")
        }
    }
}
