import ArgumentParser
import Foundation
import HearthSDK

/// `hearthctl`: the hub from a shell, built on HearthSDK.
@main
struct Hearthctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearthctl",
        abstract: "Look at and control a Hearth home from the command line.",
        discussion: """
            The hub and token come from --hub and --token, else $HEARTH_HUB and $HEARTH_TOKEN \
            (default hub 127.0.0.1:7070). Devices, rooms and structures are named by id or by name.

            Exit codes: 0 success, 1 other failure, 64 usage (a missing or unknown argument), 3 not found, 4 invalid argument, \
            5 permission denied, 6 unauthenticated, 7 unavailable (hub or device offline), \
            8 deadline exceeded, 9 failed precondition. Errors go to standard error as \
            'hearthctl: <code>: <message>'.
            """,
        subcommands: [
            ListStructures.self, ListRooms.self, ListDevices.self, ShowDevice.self, Watch.self,
            Rename.self, RoomCommand.self, Move.self, SetAttribute.self, CallCommand.self,
            ListDrivers.self, RestartDriver.self, CameraCommand.self,
        ])

    /// Runs a subcommand's body with a connected home; a failure prints `hearthctl: <code>: <message>` to
    /// standard error and exits with the documented code.
    static func run(_ options: HubOptions, _ body: (Home) async throws -> Void) async throws {
        do {
            let home = try options.connect()
            defer { home.close() }
            try await body(home)
        } catch {
            throw exit(error)
        }
    }

    /// Runs work that needs no hub (reading input) with the same error reporting as ``run(_:_:)``; done
    /// before connecting, so that bad input never opens a connection.
    static func local<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw exit(error) }
    }

    /// Prints `hearthctl: <code>: <message>` to standard error; the exit code to throw.
    private static func exit(_ error: any Error) -> any Error {
        if error is ExitCode { return error }
        let failure = (error as? Failure) ?? Failure(error)
        FileHandle.standardError.write(Data("hearthctl: \(failure.description)\n".utf8))
        return ExitCode(failure.code)
    }
}

/// A failure with its exit code.
struct Failure: Error, CustomStringConvertible {
    let code: Int32
    let description: String

    init(_ error: any Error) {
        let home = HomeError.from(error)
        code = Self.exitCode(home.code)
        description = "\(home.code.rawValue): \(home.message)"
    }

    init(_ code: HomeError.Code, _ message: String) { self.init(HomeError(code, message)) }

    static func exitCode(_ code: HomeError.Code) -> Int32 {
        switch code {
        case .notFound: 3
        case .invalidArgument: 4
        case .permissionDenied: 5
        case .unauthenticated: 6
        case .unavailable: 7
        case .deadlineExceeded: 8
        case .failedPrecondition: 9
        default: 1
        }
    }
}
