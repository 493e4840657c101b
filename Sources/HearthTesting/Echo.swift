public import HearthWire

/// The method descriptors of `hearth.echo.v1.Echo`.
public enum Echo {
    public static let service = "hearth.echo.v1.Echo"
    public static let get = MethodDescriptor<Hearth_Echo_V1_EchoRequest, Hearth_Echo_V1_EchoResponse>(
        service: service, method: "Get", kind: .unary)
    public static let expand = MethodDescriptor<Hearth_Echo_V1_ExpandRequest, Hearth_Echo_V1_EchoResponse>(
        service: service, method: "Expand", kind: .serverStreaming)
    public static let collect = MethodDescriptor<Hearth_Echo_V1_EchoRequest, Hearth_Echo_V1_EchoResponse>(
        service: service, method: "Collect", kind: .clientStreaming)
    public static let update = MethodDescriptor<Hearth_Echo_V1_EchoRequest, Hearth_Echo_V1_EchoResponse>(
        service: service, method: "Update", kind: .bidirectionalStreaming)
}
