public import HearthWire
import Foundation
import SwiftProtobuf

/// The method descriptors of gRPC's interop services (`grpc.testing.TestService` and
/// `grpc.testing.UnimplementedService`, from `Protos/grpc/testing`).
public enum InteropTesting {
    public static let service = "grpc.testing.TestService"
    public static let emptyCall = MethodDescriptor<Grpc_Testing_Empty, Grpc_Testing_Empty>(
        service: service, method: "EmptyCall", kind: .unary)
    public static let unaryCall = MethodDescriptor<Grpc_Testing_SimpleRequest, Grpc_Testing_SimpleResponse>(
        service: service, method: "UnaryCall", kind: .unary)
    public static let streamingOutputCall = MethodDescriptor<
        Grpc_Testing_StreamingOutputCallRequest, Grpc_Testing_StreamingOutputCallResponse
    >(service: service, method: "StreamingOutputCall", kind: .serverStreaming)
    public static let streamingInputCall = MethodDescriptor<
        Grpc_Testing_StreamingInputCallRequest, Grpc_Testing_StreamingInputCallResponse
    >(service: service, method: "StreamingInputCall", kind: .clientStreaming)
    public static let fullDuplexCall = MethodDescriptor<
        Grpc_Testing_StreamingOutputCallRequest, Grpc_Testing_StreamingOutputCallResponse
    >(service: service, method: "FullDuplexCall", kind: .bidirectionalStreaming)
    public static let halfDuplexCall = MethodDescriptor<
        Grpc_Testing_StreamingOutputCallRequest, Grpc_Testing_StreamingOutputCallResponse
    >(service: service, method: "HalfDuplexCall", kind: .bidirectionalStreaming)
    /// Declared by TestService but implemented by no server.
    public static let unimplementedCall = MethodDescriptor<Grpc_Testing_Empty, Grpc_Testing_Empty>(
        service: service, method: "UnimplementedCall", kind: .unary)
    /// The method of a service no server implements.
    public static let unimplementedServiceCall = MethodDescriptor<Grpc_Testing_Empty, Grpc_Testing_Empty>(
        service: "grpc.testing.UnimplementedService", method: "UnimplementedCall", kind: .unary)

    /// The request metadata key echoed in the response headers.
    public static let echoInitialKey = "x-grpc-test-echo-initial"
    /// The request metadata key echoed in the trailers.
    public static let echoTrailingKey = "x-grpc-test-echo-trailing-bin"

    /// A payload of `size` zero bytes.
    public static func payload(_ size: Int) -> Grpc_Testing_Payload {
        .with {
            $0.type = .compressable
            $0.body = Data(count: max(0, size))
        }
    }
}
