import ArgumentParser
import Foundation
import HearthLoad

/// `hearth-load sdk-bench`: HearthSDK alone, fed by a recorded watch stream from a replay process.
struct SDKBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk-bench",
        abstract: "Measures HearthSDK alone: list() of a snapshot, cache bytes per device, changes applied per second and CPU per change, with no hub in the loop.")

    @Option(help: "Devices in the snapshot.") var devices = 10_000
    @Option(help: "Trait changes replayed after it.") var changes = 200_000
    @Option(help: "Changes per watch response.") var perResponse = 64
    @Option(help: "Subscribers to measure with, one run each: none, stream, batched, device, types.")
    var subscribers = "none stream batched device types"
    @Flag(help: "Each change adds a new device (per-response of them per revision, as a driver announcing) instead of changing a trait.")
    var additions = false

    func run() async throws {
        let kinds = try subscribers.split(separator: " ").map { word in
            guard let kind = SDKBenchSubscriber(rawValue: String(word)) else {
                throw ValidationError("unknown subscriber '\(word)'; one of \(SDKBenchSubscriber.allCases.map(\.rawValue))")
            }
            return kind
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        print("HearthSDK alone: \(devices) devices, \(changes) \(additions ? "devices added" : "changes"), \(perResponse) per response")
        print("subscriber  list s  bytes/device  changes/s  CPU µs/change  emissions")
        for kind in kinds {
            let server = try ChildProcess(executable, [
                "replay-server", "--devices", "\(devices)", "--changes", "\(changes)", "--per-response", "\(perResponse)",
            ] + (additions ? ["--additions"] : []))
            // "LISTENING <port> <final revision> <changes>": the stream is built (and encoded) by the replay
            // process only.
            guard let line = await server.line(timeout: .seconds(120), where: { $0.hasPrefix("LISTENING ") }),
                case let words = line.split(separator: " "), words.count == 4,
                let port = Int(words[1]), let finalRevision = UInt64(words[2]), let changeCount = Int(words[3])
            else {
                await server.stop()
                throw ValidationError("the replay server did not start")
            }
            // Each run in a fresh process of its own would be cleaner; one process keeps the table in one
            // place, and each Home is closed (and its cache freed) before the next.
            let result = try await SDKBench.measure(
                address: "127.0.0.1:\(port)", devices: devices, changes: changeCount,
                finalRevision: finalRevision, subscriber: kind, additions: additions, start: { server.send("GO") })
            await server.stop()
            print(
                kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0),
                String(format: "%7.2f  %12.0f  %9.0f  %13.2f  %9d", result.listSeconds, result.bytesPerDevice,
                       result.changesPerSecond, result.cpuMicrosecondsPerChange, result.emissions))
        }
    }
}

/// The replay process of `sdk-bench` (started by it, not by hand): serves the recorded stream; `GO` on
/// standard input sends the changes.
struct ReplayServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay-server", abstract: "Serves a recorded watch stream to sdk-bench (internal).")

    @Option var devices: Int
    @Option var changes: Int
    @Option var perResponse: Int
    @Flag var additions = false

    func run() async throws {
        let server = ReplayServer(
            stream: ReplayStream(devices: devices, changes: changes, changesPerResponse: perResponse, additions: additions))
        Thread.detachNewThread {
            while let line = readLine() {
                if line == "GO" { server.go() }
            }
            Foundation.exit(0)  // sdk-bench closed our input: it is done with us
        }
        try await server.run()
    }
}

/// `hearth-load toggle`: one `Home` toggling one device on a running hub, each call timed from the call.
struct ToggleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toggle",
        abstract: "Toggles one device's OnOff trait through HearthSDK at a fixed rate on a running hub; prints the round trip from the call.")

    @Option(help: "The hub, host:port or unix:/path.") var hub: String
    @Option(help: "A client token of the hub.") var token: String
    @Option(help: "The device's hub id (driver/local).") var device: String
    @Option(help: "Calls per second.") var rate = 1000.0
    @Option(help: "Calls in all.") var calls = 5000

    func run() async throws {
        guard rate > 0, calls > 0 else { throw ValidationError("--rate and --calls must be positive") }
        let outcome = try await TogglePace.run(address: hub, token: token, device: device, rate: rate, calls: calls)
        let errors = outcome.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print(
            "toggles: \(calls) at \(rate)/s, \(outcome.ok) ok\(errors.isEmpty ? "" : ", errors: \(errors)"); "
                + "from the call p50 \(outcome.fromCall.p50) ms, p99 \(outcome.fromCall.p99) ms; "
                + "CPU \(Int(outcome.cpuPerCall.rounded())) µs per call")
        if outcome.ok != calls { throw ExitCode.failure }
    }
}
