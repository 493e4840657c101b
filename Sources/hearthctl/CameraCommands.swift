import ArgumentParser
import Foundation
import HearthSDK

/// `hearthctl camera …`: live view, talkback and push transports of cameras and doorbells, through the typed
/// platform traits (`Google.WebRtcLiveViewTrait`, `Google.PushAvStreamTransportTrait`).
struct CameraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camera",
        abstract: "Live view, talkback and push transports of cameras and doorbells.",
        discussion: """
            A device that does not exist is 'notFound' (exit 3); one that exists but is not a camera (it lacks \
            the trait the command needs) is 'invalidArgument' (exit 4). The camera's own refusals keep their \
            codes: a bad SDP offer is 4, an unknown session or connection 3, talkback where it cannot start 9.
            """,
        subcommands: [LiveView.self, Talkback.self, Transports.self])

    typealias LiveViewTrait = Google.WebRtcLiveViewTrait

    struct LiveView: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "live-view", abstract: "Start, extend and stop WebRTC live-view sessions.",
            subcommands: [Start.self, Extend.self, Stop.self])
    }

    struct Talkback: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start and stop talkback (your audio to the camera's speaker) in a live-view session.",
            subcommands: [StartTalkback.self, StopTalkback.self])
    }
}

extension CameraCommand.LiveView {
    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send an SDP offer; print the camera's answer, the media session id and its duration.",
            discussion: """
                Prints 'session: <id>', 'duration: <seconds> s', then 'answer:' and the answer SDP; with \
                --answer-file the answer goes to that file instead. --json prints {answerSdp, mediaSessionId, \
                liveSessionDurationSeconds}. The session ends after its duration unless extended.
                """)
        @OptionGroup var hub: HubOptions
        @Option(help: ArgumentHelp("The SDP offer: a file, or - for standard input.", valueName: "path|-"))
        var offerFile = "-"
        @Option(help: ArgumentHelp("Write the answer SDP to this file instead of printing it.", valueName: "path"))
        var answerFile: String?
        @Argument(help: "Camera or doorbell id or name.") var device: String

        func run() async throws {
            let offer = try Hearthctl.local { try CameraSupport.readOffer(offerFile) }
            try await Hearthctl.run(hub) { home in
                let liveView = try await CameraSupport.trait(CameraCommand.LiveViewTrait.self, of: device, in: home)
                let response = try await liveView.startLiveView(offerSdp: offer)
                if let answerFile {
                    do {
                        try Data(response.answerSdp.utf8).write(to: URL(fileURLWithPath: answerFile))
                    } catch {
                        // The session exists; say which, so that it can be stopped.
                        throw Failure(.internal, "session \(response.mediaSessionId) started, but writing \(answerFile) failed: \(error.localizedDescription)")
                    }
                }
                if hub.json {
                    var object: [String: Any] = [
                        "mediaSessionId": response.mediaSessionId,
                        "liveSessionDurationSeconds": response.liveSessionDurationSeconds,
                    ]
                    if answerFile == nil { object["answerSdp"] = response.answerSdp }
                    return try Output.json(object)
                }
                print("session: \(response.mediaSessionId)")
                print("duration: \(response.liveSessionDurationSeconds) s")
                if answerFile == nil {
                    // By scalars: to Swift, the answer's final "\r\n" is one Character, which is not "\n".
                    print("answer:\n\(response.answerSdp)", terminator: response.answerSdp.unicodeScalars.last == "\n" ? "" : "\n")
                }
            }
        }
    }

    struct Extend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Extend a live-view session before it expires; print its new duration.")
        @OptionGroup var target: SessionTarget

        func run() async throws {
            try await target.run { liveView, session in
                let response = try await liveView.extendLiveView(mediaSessionId: session)
                if target.hub.json {
                    return try Output.json(["mediaSessionId": session, "liveSessionDurationSeconds": response.liveSessionDurationSeconds])
                }
                print("duration: \(response.liveSessionDurationSeconds) s")
            }
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a live-view session.")
        @OptionGroup var target: SessionTarget

        func run() async throws {
            try await target.run { liveView, session in try await liveView.stopLiveView(mediaSessionId: session) }
        }
    }
}

extension CameraCommand.Talkback {
    struct StartTalkback: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start",
            abstract: "Start talkback in a session (its offer must send audio; the camera needs a speaker).")
        @OptionGroup var target: SessionTarget

        func run() async throws {
            try await target.run { liveView, session in try await liveView.startTalkback(mediaSessionId: session) }
        }
    }

    struct StopTalkback: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop talkback in a session.")
        @OptionGroup var target: SessionTarget

        func run() async throws {
            try await target.run { liveView, session in try await liveView.stopTalkback(mediaSessionId: session) }
        }
    }
}

/// What `extend`, `stop` and `talkback start|stop` take: the hub, the camera and the session.
struct SessionTarget: ParsableArguments {
    @OptionGroup var hub: HubOptions
    @Argument(help: "Camera or doorbell id or name.") var device: String
    @Argument(help: "The media session id that start printed.") var session: String

    /// Runs `body` with the camera's live-view trait and the session id, with hearthctl's error reporting.
    func run(_ body: (CameraCommand.LiveViewTrait, String) async throws -> Void) async throws {
        try await Hearthctl.run(hub) { home in
            try await body(CameraSupport.trait(CameraCommand.LiveViewTrait.self, of: device, in: home), session)
        }
    }
}
