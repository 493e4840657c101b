// swift-tools-version: 6.1
//
// Builds swift-protobuf's `protoc-gen-swift` plugin for tools/generate-protos.sh.
// It has no targets of its own; the version here must match the SwiftProtobuf
// runtime the main package resolves, or generated code may not compile.
//
//     swift build --package-path tools/codegen -c release --product protoc-gen-swift
import PackageDescription

let package = Package(
    name: "HearthCodegen",
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf.git", exact: "1.39.0")
    ],
    targets: []
)
