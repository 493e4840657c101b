// swift-tools-version: 6.1
//
// Hearth: a home hub for Linux. Module layering (ARCHITECTURE.md §2):
// CNghttp2 → HearthWire → HearthProto → HearthModel → HearthTypes →
// HearthHub / HearthDriverKit / HearthSDK → thin executables.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HearthWire", targets: ["HearthWire"]),
        .library(name: "HearthTesting", targets: ["HearthTesting"]),
        .library(name: "HearthProto", targets: ["HearthProto"]),
        .library(name: "HearthModel", targets: ["HearthModel"]),
        .library(name: "HearthTypes", targets: ["HearthTypes"]),
        .library(name: "HearthHub", targets: ["HearthHub"]),
        .library(name: "HearthDriverKit", targets: ["HearthDriverKit"]),
        .library(name: "HearthSDK", targets: ["HearthSDK"]),
        .executable(name: "hearth-hub", targets: ["hearth-hub"]),
        .executable(name: "hearthctl", targets: ["hearthctl"]),
        .executable(name: "hearth-driver-lights", targets: ["hearth-driver-lights"]),
        .executable(name: "hearth-driver-climate", targets: ["hearth-driver-climate"]),
        .executable(name: "hearth-driver-vendor", targets: ["hearth-driver-vendor"]),
        .executable(name: "hearth-driver-camera", targets: ["hearth-driver-camera"]),
        .executable(name: "hearth-load", targets: ["hearth-load"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The hub's driver supervision: child processes with piped output and SIGTERM-then-SIGKILL teardown.
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        // HearthSDK's publishers: Combine on Apple platforms, OpenCombine elsewhere (OpenCombineShim picks).
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // TLS for HearthWire's TCP listeners and clients (BoringSSL inside swift-nio-ssl).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The hub's self-signed certificate and the tests' certificates: X.509 without hand-written ASN.1.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // libnghttp2 from the system (Debian: libnghttp2-dev, 1.52.0-1+deb12u2 or later).
        .systemLibrary(
            name: "CNghttp2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        // zlib from the system (Debian: zlib1g-dev), for gzip and deflate message compression in HearthWire.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // glibc's malloc.h (malloc_trim), for giving freed memory back after bursts of connections.
        .systemLibrary(name: "CMalloc"),
        // HTTP/2 on nghttp2 over SwiftNIO with gRPC framing. Knows nothing of homes.
        .target(
            name: "HearthWire",
            dependencies: [
                "CNghttp2",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                "CZlib",
            ],
            swiftSettings: swiftSettings
        ),
        // The echo service and helpers that tests, interop and benchmarks share.
        .target(
            name: "HearthTesting",
            dependencies: [
                "HearthWire",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        // Messages generated from Protos/hearth/v1 and the method descriptors of its services.
        // Depends on HearthWire only for the descriptor type (see Docs/Hub.md).
        .target(
            name: "HearthProto",
            dependencies: [
                "HearthWire",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        // Ids, Value, the trait and device-type catalog and its validator; conversions to and from the protocol.
        .target(
            name: "HearthModel",
            dependencies: [
                "HearthProto",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        // Typed device types and traits generated from the catalog; transport-free.
        .target(
            name: "HearthTypes",
            dependencies: ["HearthModel"],
            swiftSettings: swiftSettings
        ),
        // The hub's engine: graph, revisions, storage, watch fan-out, mutations, command routing, access.
        .target(
            name: "HearthHub",
            dependencies: [
                "CMalloc",
                "HearthWire",
                "HearthProto",
                "HearthModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the state saver's row bindings (SQLiteStore).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        // The library a driver is written with: connection, announcements, typed reports, handlers.
        .target(
            name: "HearthDriverKit",
            dependencies: [
                "HearthWire",
                "HearthProto",
                "HearthModel",
                "HearthTypes",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        // The client library: a cache fed by one watch stream, the Home API's queries and publishers.
        .target(
            name: "HearthSDK",
            dependencies: [
                "HearthWire",
                "HearthProto",
                "HearthModel",
                "HearthTypes",
                .product(name: "OpenCombineShim", package: "OpenCombine"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
                // The watch stream's bytes, read straight into the cache (WatchBatch).
                .product(name: "NIOCore", package: "swift-nio"),
                // Where `sink(receiveValue:)` reports the failure it has no closure for.
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the shipped simulated drivers share: seeded randomness, the common command line, rooms,
        // clocks and the simulated cloud link. Built on HearthDriverKit only.
        .target(
            name: "HearthSimulator",
            dependencies: [
                "HearthDriverKit",
                "HearthModel",
                "HearthTypes",
                "HearthWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The simulated cameras and doorbells of hearth-driver-camera: SDP offer/answer, live-view sessions,
        // push transports, settings, doorbell presses. On HearthDriverKit and HearthSimulator.
        .target(
            name: "HearthCameraSim",
            dependencies: [
                "HearthDriverKit",
                "HearthSimulator",
                "HearthModel",
                "HearthTypes",
                "HearthWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-driver-camera",
            dependencies: [
                "HearthCameraSim",
                "HearthDriverKit",
                "HearthSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The simulated drivers: thin programs over HearthSimulator (Lights/, Climate/, Vendor/).
        .executableTarget(
            name: "hearth-driver-lights",
            dependencies: [
                "HearthDriverKit", "HearthSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-driver-climate",
            dependencies: [
                "HearthDriverKit", "HearthSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-driver-vendor",
            dependencies: [
                "HearthDriverKit", "HearthSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The load test (tools/load): a hub, driver processes on HearthDriverKit and watching HearthSDK
        // clients; the library is what `hearth-load` runs, tested without the command line.
        .target(
            name: "HearthLoad",
            dependencies: [
                "HearthDriverKit", "HearthSDK", "HearthSimulator", "HearthModel", "HearthTypes", "HearthTesting",
                "HearthProto", "HearthWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "OpenCombineShim", package: "OpenCombine"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-load",
            dependencies: [
                "HearthLoad", "HearthDriverKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The command-line client, on HearthSDK.
        .executableTarget(
            name: "hearthctl",
            dependencies: ["HearthSDK", "HearthWire", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),
        // The README's HearthSDK example, compiled and run by the tests.
        // Programs written in the style of Google's Home APIs guides, run against the demo home by the tests.
        .executableTarget(
            name: "hearth-guide-examples",
            dependencies: ["HearthSDK"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-sdk-example",
            dependencies: ["HearthSDK"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "hearth-hub",
            dependencies: [
                "HearthWire",
                "HearthHub",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthWireTests",
            dependencies: [
                "HearthWire",
                "HearthTesting",
                "CNghttp2",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthHubTests",
            dependencies: [
                "HearthHub",
                "HearthDriverKit",
                "HearthSDK",
                "HearthSimulator",
                "HearthTypes",
                "HearthProto",
                "HearthModel",
                "HearthWire",
                "HearthTesting",
                "HearthCameraSim",
                "HearthLoad",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthCameraSimTests",
            dependencies: ["HearthCameraSim", "HearthDriverKit", "HearthModel", "HearthTypes"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthModelTests",
            dependencies: ["HearthModel", "HearthProto", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HearthTypesTests",
            dependencies: ["HearthTypes", "HearthModel", "HearthTesting"],
            swiftSettings: swiftSettings
        ),
    ]
)

