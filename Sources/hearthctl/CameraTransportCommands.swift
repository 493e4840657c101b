import ArgumentParser
import Foundation
import HearthSDK

extension CameraCommand {
    typealias TransportTrait = Google.PushAvStreamTransportTrait

    struct Transports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, allocate, remove, activate and deactivate a camera's push transports (recording uploads).",
            discussion: "'hearthctl camera transports <device>' lists them (the 'list' subcommand is the default).",
            subcommands: [List.self, Allocate.self, Remove.self, Activate.self, Deactivate.self],
            defaultSubcommand: List.self)
    }
}

extension CameraCommand.Transports {
    typealias Trait = CameraCommand.TransportTrait

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the push transports as the camera reports them: id, status, trigger, usage, url.")
        @OptionGroup var hub: HubOptions
        @Option(help: "Only this connection id.") var connection: UInt16?
        @Argument(help: "Camera or doorbell id or name.") var device: String

        func run() async throws {
            try await Hearthctl.run(hub) { home in
                let trait = try await CameraSupport.trait(Trait.self, of: device, in: home)
                let found = try await trait.findTransport { $0.connectionID = connection }.transportConfigurations
                if hub.json { return try Output.json(found.map(Self.json)) }
                Output.table(
                    ["ID", "STATUS", "TRIGGER", "USAGE", "URL"],
                    found.map { connection in
                        let options = connection.transportOptions
                        return [
                            "\(connection.connectionID)", "\(connection.transportStatus)",
                            options.map { "\($0.triggerOptions.triggerType)" } ?? "-",
                            options.map { "\($0.streamUsage)" } ?? "-", options?.url ?? "-",
                        ]
                    })
            }
        }

        static func json(_ connection: Trait.TransportConfigurationStruct) -> [String: Any] {
            var object: [String: Any] = ["connectionId": connection.connectionID, "status": "\(connection.transportStatus)"]
            if let options = connection.transportOptions {
                object["trigger"] = "\(options.triggerOptions.triggerType)"
                object["usage"] = "\(options.streamUsage)"
                object["url"] = options.url
            }
            return object
        }
    }

    enum TriggerArgument: String, ExpressibleByArgument, CaseIterable {
        case command, motion, continuous
        var value: Trait.TransportTriggerTypeEnum {
            switch self {
            case .command: .command
            case .motion: .motion
            case .continuous: .continuous
            }
        }
    }

    enum UsageArgument: String, ExpressibleByArgument, CaseIterable {
        case recording, analysis, liveView = "live-view", `internal`
        var value: Trait.StreamUsageEnum {
            switch self {
            case .recording: .recording
            case .analysis: .analysis
            case .liveView: .liveView
            case .internal: .internal
            }
        }
    }

    struct Allocate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a push transport (inactive until activated); prints its connection id.",
            discussion: """
                CMAF over CMAF ingest, with 4 s segments of 1 s chunks unless told otherwise. A motion trigger \
                records 10 s after the first motion, 5 s more for each further one, 30 s at most.
                """)
        @OptionGroup var hub: HubOptions
        @Option(help: "The ingest URL (https://…).") var url: String
        @Option(help: "What makes it push: command, motion or continuous.") var trigger: TriggerArgument = .motion
        @Option(help: "What the stream is for: recording, analysis, live-view or internal.") var usage: UsageArgument = .recording
        @Option(help: "Milliseconds per CMAF segment (500…65500).") var segmentMs: UInt16 = 4000
        @Option(help: "Milliseconds per CMAF chunk, at most half a segment.") var chunkMs: UInt16 = 1000
        @Option(help: "The TLS endpoint id the camera uses for the upload.") var tlsEndpoint: UInt16 = 1
        @Argument(help: "Camera or doorbell id or name.") var device: String

        func run() async throws {
            try await Hearthctl.run(hub) { home in
                let trait = try await CameraSupport.trait(Trait.self, of: device, in: home)
                let options = Trait.TransportOptionsStruct(
                    streamUsage: usage.value, tlsEndpointID: tlsEndpoint, url: url,
                    triggerOptions: .init(
                        triggerType: trigger.value,
                        motionTimeControl: trigger == .motion
                            ? .init(initialDuration: 10, augmentationDuration: 5, maxDuration: 30, blindDuration: 5) : nil),
                    ingestMethod: .cmafIngest,
                    containerOptions: .init(
                        containerType: .cmaf,
                        cmafContainerOptions: .init(
                            cmafInterface: .interface1, segmentDuration: segmentMs, chunkDuration: chunkMs, sessionGroup: 1,
                            trackName: "main")))
                let created = try await trait.allocatePushTransport(transportOptions: options).transportConfiguration
                if hub.json { return try Output.json(List.json(created)) }
                print(created.connectionID)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a push transport (ending its push).")
        @OptionGroup var hub: HubOptions
        @Argument(help: "Camera or doorbell id or name.") var device: String
        @Argument(help: "The connection id.") var connection: UInt16

        func run() async throws {
            try await Hearthctl.run(hub) { home in
                try await CameraSupport.trait(Trait.self, of: device, in: home).deallocatePushTransport(connectionID: connection)
            }
        }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let a transport push (the camera records), or all of them without a connection id.")
        @OptionGroup var hub: HubOptions
        @Argument(help: "Camera or doorbell id or name.") var device: String
        @Argument(help: "The connection id; all when left out.") var connection: UInt16?

        func run() async throws {
            try await CameraCommand.Transports.setStatus(.active, hub: hub, device: device, connection: connection)
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop a transport pushing, or all of them without a connection id.")
        @OptionGroup var hub: HubOptions
        @Argument(help: "Camera or doorbell id or name.") var device: String
        @Argument(help: "The connection id; all when left out.") var connection: UInt16?

        func run() async throws {
            try await CameraCommand.Transports.setStatus(.inactive, hub: hub, device: device, connection: connection)
        }
    }

    static func setStatus(
        _ status: Trait.TransportStatusEnum, hub: HubOptions, device: String, connection: UInt16?
    ) async throws {
        try await Hearthctl.run(hub) { home in
            try await CameraSupport.trait(Trait.self, of: device, in: home)
                .setTransportStatus(transportStatus: status) { $0.connectionID = connection }
        }
    }
}
