// swift-tools-version: 6.1
//
// libFuzzer targets for Hearth, kept out of the main package so that `swift build` and `swift test`
// there never need the fuzzer runtime. Each `Fuzz…` executable defines `LLVMFuzzerTestOneInput`; libFuzzer
// provides `main`. Build and run them with `run.sh` beside this file (README.md says how):
//
//     swift build -c debug --scratch-path .build-fuzz --sanitize=fuzzer --sanitize=address \
//         -Xswiftc -sanitize=fuzzer --product FuzzWireFraming
//
// Both spellings of the fuzzer flag are needed with SwiftPM 6.3: its own `--sanitize=fuzzer` makes it link
// the executable without the renamed entry point it otherwise adds (`-Xswiftc -sanitize=fuzzer` alone fails
// to link with an undefined `<Target>_main`), so libFuzzer's `main` is the program's; but it instruments
// no Swift code for coverage, which `-Xswiftc -sanitize=fuzzer` does. Debug builds compile the main package
// with testing enabled, so the targets reach internal types through `@testable import`. `fuzz-seeds`
// writes the seed corpus under corpus/; it has a `main` of its own, so it is built without sanitizers in
// another scratch folder (README.md); the seeds are committed.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "HearthFuzz",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "FuzzWireFraming", targets: ["FuzzWireFraming"]),
        .executable(name: "FuzzVendorSchema", targets: ["FuzzVendorSchema"]),
        .executable(name: "FuzzValueValidator", targets: ["FuzzValueValidator"]),
        .executable(name: "FuzzDriverMessage", targets: ["FuzzDriverMessage"]),
        .executable(name: "fuzz-seeds", targets: ["fuzz-seeds"]),
    ],
    dependencies: [
        .package(name: "Hearth", path: "../.."),
        // The versions the main package uses.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
    ],
    targets: [
        // What the targets share: reading structured choices out of the fuzzer's bytes, blocking on async work.
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "HearthModel", package: "Hearth"),
                .product(name: "HearthWire", package: "Hearth"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        // A server connection on an EmbeddedChannel serving a bounded echo service: the wire target feeds it,
        // the seed writer records real calls through it.
        .target(
            name: "WireHarness",
            dependencies: [
                "FuzzSupport",
                .product(name: "HearthWire", package: "Hearth"),
                .product(name: "HearthTesting", package: "Hearth"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        // HTTP/2 and gRPC framing: raw bytes into a server connection, and the stream state machine and
        // message deframer on their own.
        .executableTarget(
            name: "FuzzWireFraming",
            dependencies: [
                "FuzzSupport",
                "WireHarness",
                .product(name: "HearthWire", package: "Hearth"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Announce.vendor_trait_schemas_json as the hub reads it: JSON → TraitSchema → Catalog.registerVendorTrait.
        .executableTarget(
            name: "FuzzVendorSchema",
            dependencies: ["FuzzSupport", .product(name: "HearthModel", package: "Hearth")],
            swiftSettings: swiftSettings
        ),
        // Wire values (reports, commands, results, events) converted to Value and validated against the catalog.
        .executableTarget(
            name: "FuzzValueValidator",
            dependencies: [
                "FuzzSupport",
                .product(name: "HearthModel", package: "Hearth"),
                .product(name: "HearthProto", package: "Hearth"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        // Driver-stream messages applied to a real HubEngine on SQLite.
        .executableTarget(
            name: "FuzzDriverMessage",
            dependencies: [
                "FuzzSupport",
                .product(name: "HearthHub", package: "Hearth"),
                .product(name: "HearthModel", package: "Hearth"),
                .product(name: "HearthProto", package: "Hearth"),
                .product(name: "HearthWire", package: "Hearth"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        // Writes the seed corpus (corpus/<Target>/) from real messages. Not a fuzz target: it has its own main.
        .executableTarget(
            name: "fuzz-seeds",
            dependencies: [
                "FuzzSupport",
                "WireHarness",
                .product(name: "HearthWire", package: "Hearth"),
                .product(name: "HearthTesting", package: "Hearth"),
                .product(name: "HearthModel", package: "Hearth"),
                .product(name: "HearthProto", package: "Hearth"),
                .product(name: "HearthDriverKit", package: "Hearth"),
                .product(name: "HearthTypes", package: "Hearth"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
