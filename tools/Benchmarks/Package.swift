// swift-tools-version: 6.1
//
// HearthWire's benchmark servers, kept out of the main package so that the main build and
// `swift test` never depend on grpc-swift. `run.sh` beside this file builds them in release
// and drives them with h2load; README.md says what it measures.
//
//     swift build -c release --package-path tools/Benchmarks --product grpc-swift-echo-server
//
// Both servers implement Protos/hearth/echo/v1/echo.proto with the same behaviour and the same
// command line (`--port N` / `--unix PATH`, then `LISTENING <port>` on stdout).
//
// `hearth-engine-bench` measures the hub's engine in process (no sockets); `engine.sh` builds and runs it:
//
//     swift build -c release --package-path tools/Benchmarks --product hearth-engine-bench
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "HearthBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "grpc-swift-echo-server", targets: ["grpc-swift-echo-server"]),
        .executable(name: "hearth-echo-server", targets: ["hearth-echo-server"]),
        .executable(name: "hearth-engine-bench", targets: ["hearth-engine-bench"]),
    ],
    dependencies: [
        // The peer: grpc-swift-2 with its NIO HTTP/2 transport and protobuf coding.
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),

        // Hearth's own server: HearthWire and HearthTesting's EchoService from the main package.
        .package(name: "Hearth", path: "../.."),
        // The engine benchmark's command line, logger and metrics page (the versions the main package uses).
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // The `--port` / `--unix` command line and `LISTENING` line both servers share.
        .target(name: "EchoServerCommandLine", swiftSettings: swiftSettings),
        // The echo service on grpc-swift-2: GRPCCore's router, the NIO posix HTTP/2 transport,
        // protobuf coding. The echo messages come from HearthTesting (generated once, from
        // Protos/hearth/echo/v1); the service glue is written by hand (no grpc-swift stubs).
        .executableTarget(
            name: "grpc-swift-echo-server",
            dependencies: [
                "EchoServerCommandLine",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "HearthTesting", package: "Hearth"),
            ],
            swiftSettings: swiftSettings
        ),

        // The same service on HearthWire. Building it builds the main package into this
        // package's own .build/.
        .executableTarget(
            name: "hearth-echo-server",
            dependencies: [
                "EchoServerCommandLine",
                .product(name: "HearthWire", package: "Hearth"),
                .product(name: "HearthTesting", package: "Hearth"),
            ],
            swiftSettings: swiftSettings
        ),

        // The hub's engine alone, in process: change throughput with 0 to 100 watchers, memory per device,
        // cold start from SQLite. No peer: nothing else runs Hearth's engine (see README.md). `engine.sh`.
        .executableTarget(
            name: "hearth-engine-bench",
            dependencies: [
                .product(name: "HearthHub", package: "Hearth"),
                .product(name: "HearthProto", package: "Hearth"),
                .product(name: "HearthModel", package: "Hearth"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
