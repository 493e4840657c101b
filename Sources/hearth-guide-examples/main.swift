import Foundation
import HearthSDK

// Small programs written the way Google's Home APIs guides for iOS write them, run against a hub (the
// demo home) by Tests/HearthHubTests/SDK/GuideStyleTests.swift. Only the import and the way a `Home` is
// obtained differ from the guides. Each program prints what it saw and exits non-zero when it did not see
// what the guides promise.
// Usage: hearth-guide-examples HOST:PORT TOKEN PROGRAM
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3 else {
    print("usage: hearth-guide-examples HOST:PORT TOKEN \(GuideProgram.allCases.map(\.rawValue).joined(separator: "|"))")
    exit(2)
}
guard let program = GuideProgram(rawValue: arguments[2]) else {
    print("unknown program '\(arguments[2])'")
    exit(2)
}
let home = try Home.connect(to: arguments[0], token: arguments[1])
defer { home.close() }
do {
    try await program.run(home)
    print("OK \(program.rawValue)")
} catch {
    print("FAILED \(program.rawValue): \(error)")
    exit(1)
}
