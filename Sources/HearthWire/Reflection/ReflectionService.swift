import Foundation
import SwiftProtobuf

/// gRPC server reflection (`grpc.reflection.v1.ServerReflection` and `grpc.reflection.v1alpha`, which many
/// tools still call), so that stock tools such as `grpcurl` can list and describe a server's services
/// without having its `.proto` files.
///
/// It answers from serialized `FileDescriptorSet`s, as `tools/generate-protos.sh` commits them beside the
/// generated messages (`HearthV1Descriptors`, …). Its own and the health service's files are always included.
/// Answers: the services declared in the files (list services), a file and its imports by file name, the file
/// defining a symbol (service, method, message, field, enum), the file defining an extension and the extension
/// numbers of a message (none in Hearth's files, so NOT_FOUND and an empty list).
///
/// ```swift
/// let reflection = try ReflectionService(fileDescriptorSets: [HearthV1Descriptors.serializedFileDescriptorSet])
/// let server = WireServer(listeningOn: [...], services: [HealthService(), reflection, ...])
/// ```
public struct ReflectionService: WireService {
    /// The v1 method, for clients.
    public static let info = MethodDescriptor<Grpc_Reflection_V1_ServerReflectionRequest, Grpc_Reflection_V1_ServerReflectionResponse>(
        service: "grpc.reflection.v1.ServerReflection", method: "ServerReflectionInfo", kind: .bidirectionalStreaming)
    /// The v1alpha method, for clients.
    public static let infoV1alpha = MethodDescriptor<
        Grpc_Reflection_V1alpha_ServerReflectionRequest, Grpc_Reflection_V1alpha_ServerReflectionResponse
    >(service: "grpc.reflection.v1alpha.ServerReflection", method: "ServerReflectionInfo", kind: .bidirectionalStreaming)

    private let index: DescriptorIndex

    /// Creates the service.
    /// - Parameter fileDescriptorSets: serialized `google.protobuf.FileDescriptorSet`s of the files to describe.
    /// - Throws: ``ReflectionError`` when a set does not parse.
    public init(fileDescriptorSets: [[UInt8]]) throws {
        index = try DescriptorIndex(
            sets: [
                GRPCReflectionV1Descriptors.serializedFileDescriptorSet,
                GRPCReflectionV1alphaDescriptors.serializedFileDescriptorSet,
                GRPCHealthV1Descriptors.serializedFileDescriptorSet,
            ] + fileDescriptorSets)
    }

    /// The services it lists, sorted.
    public var serviceNames: [String] { index.services }

    public func register(into router: inout ServiceRouter) {
        router.registerBidirectional(Self.info) { [index] requests, responses, _ in
            var sent = Set<String>()
            for try await request in requests {
                try await responses.write(Self.answer(request, index: index, sent: &sent))
            }
        }
        // v1alpha's messages are v1's on the wire: each question is read as v1 and each answer written back.
        router.registerBidirectional(Self.infoV1alpha) { [index] requests, responses, _ in
            var sent = Set<String>()
            for try await request in requests {
                let v1 = try Grpc_Reflection_V1_ServerReflectionRequest(serializedBytes: request.serializedBytes() as [UInt8])
                let answer = Self.answer(v1, index: index, sent: &sent)
                try await responses.write(
                    Grpc_Reflection_V1alpha_ServerReflectionResponse(serializedBytes: answer.serializedBytes() as [UInt8]))
            }
        }
    }

    static func answer(
        _ request: Grpc_Reflection_V1_ServerReflectionRequest, index: DescriptorIndex, sent: inout Set<String>
    ) -> Grpc_Reflection_V1_ServerReflectionResponse {
        var response = Grpc_Reflection_V1_ServerReflectionResponse()
        response.validHost = request.host
        response.originalRequest = request
        func files(_ name: String?, missing: String) {
            if let name, let files = index.fileWithDependencies(name, sent: &sent) {
                response.fileDescriptorResponse = .with { $0.fileDescriptorProto = files.map { Data($0) } }
            } else {
                response.errorResponse = .with {
                    $0.errorCode = Int32(Status.Code.notFound.rawValue)
                    $0.errorMessage = missing
                }
            }
        }
        switch request.messageRequest {
        case .listServices:
            response.listServicesResponse = .with {
                $0.service = index.services.map { name in .with { $0.name = name } }
            }
        case .fileByFilename(let name):
            files(name, missing: "file \(name) not found")
        case .fileContainingSymbol(let symbol):
            let name = symbol.hasPrefix(".") ? String(symbol.dropFirst()) : symbol
            files(index.fileBySymbol[name], missing: "symbol \(symbol) not found")
        case .fileContainingExtension(let request):
            files(
                index.extensions[request.containingType]?[request.extensionNumber],
                missing: "extension \(request.extensionNumber) of \(request.containingType) not found")
        case .allExtensionNumbersOfType(let type):
            if index.fileBySymbol[type] != nil {
                response.allExtensionNumbersResponse = .with {
                    $0.baseTypeName = type
                    $0.extensionNumber = (index.extensions[type]?.keys).map { Array($0).sorted() } ?? []
                }
            } else {
                response.errorResponse = .with {
                    $0.errorCode = Int32(Status.Code.notFound.rawValue)
                    $0.errorMessage = "type \(type) not found"
                }
            }
        case nil:
            response.errorResponse = .with {
                $0.errorCode = Int32(Status.Code.invalidArgument.rawValue)
                $0.errorMessage = "the request asks nothing (no message_request)"
            }
        }
        return response
    }
}
