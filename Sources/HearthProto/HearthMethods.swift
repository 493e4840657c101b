public import HearthWire

/// The methods of `hearth.v1.HomeService`, for the hub (to serve) and for clients (to call).
///
/// ```swift
/// let info = try await client.unary(HomeMethods.getHub, request: .init(), options: options)
/// ```
public enum HomeMethods {
    /// The service's full name.
    public static let service = "hearth.v1.HomeService"

    public static let getHub = MethodDescriptor<Hearth_V1_GetHubRequest, Hearth_V1_HubInfo>(
        service: service, method: "GetHub", kind: .unary)
    public static let watch = MethodDescriptor<Hearth_V1_WatchRequest, Hearth_V1_WatchResponse>(
        service: service, method: "Watch", kind: .serverStreaming)
    /// ``watch`` for a server that sends responses it encoded once (the hub's fan-out, a replayed stream):
    /// the response codec passes bytes through. A server never decodes its own responses.
    public static let watchPreEncoded = MethodDescriptor<Hearth_V1_WatchRequest, [UInt8]>(
        service: service, method: "Watch", kind: .serverStreaming, requestCodec: watch.requestCodec,
        responseCodec: MessageCodec(serialize: { $0 }, deserialize: { _ in [] }))
    public static let createStructure = MethodDescriptor<Hearth_V1_CreateStructureRequest, Hearth_V1_Structure>(
        service: service, method: "CreateStructure", kind: .unary)
    public static let renameStructure = MethodDescriptor<Hearth_V1_RenameStructureRequest, Hearth_V1_Structure>(
        service: service, method: "RenameStructure", kind: .unary)
    public static let createRoom = MethodDescriptor<Hearth_V1_CreateRoomRequest, Hearth_V1_Room>(
        service: service, method: "CreateRoom", kind: .unary)
    public static let renameRoom = MethodDescriptor<Hearth_V1_RenameRoomRequest, Hearth_V1_Room>(
        service: service, method: "RenameRoom", kind: .unary)
    public static let deleteRoom = MethodDescriptor<Hearth_V1_DeleteRoomRequest, Hearth_V1_DeleteRoomResponse>(
        service: service, method: "DeleteRoom", kind: .unary)
    public static let renameDevice = MethodDescriptor<Hearth_V1_RenameDeviceRequest, Hearth_V1_Device>(
        service: service, method: "RenameDevice", kind: .unary)
    public static let moveDevices = MethodDescriptor<Hearth_V1_MoveDevicesRequest, Hearth_V1_MoveDevicesResponse>(
        service: service, method: "MoveDevices", kind: .unary)
    public static let sendCommand = MethodDescriptor<Hearth_V1_SendCommandRequest, Hearth_V1_SendCommandResponse>(
        service: service, method: "SendCommand", kind: .unary)
    public static let writeAttributes = MethodDescriptor<
        Hearth_V1_WriteAttributesRequest, Hearth_V1_WriteAttributesResponse
    >(service: service, method: "WriteAttributes", kind: .unary)
    public static let listDrivers = MethodDescriptor<Hearth_V1_ListDriversRequest, Hearth_V1_ListDriversResponse>(
        service: service, method: "ListDrivers", kind: .unary)
    public static let restartDriver = MethodDescriptor<Hearth_V1_RestartDriverRequest, Hearth_V1_DriverStatus>(
        service: service, method: "RestartDriver", kind: .unary)
}

/// The method of `hearth.v1.DriverService`: one bidirectional stream per driver process.
public enum DriverMethods {
    /// The service's full name.
    public static let service = "hearth.v1.DriverService"

    public static let connect = MethodDescriptor<Hearth_V1_DriverMessage, Hearth_V1_HubMessage>(
        service: service, method: "Connect", kind: .bidirectionalStreaming)
    /// ``connect`` for a driver that sends messages it encoded itself (HearthDriverKit encodes its reports
    /// straight from its store): the request codec passes bytes through.
    public static let connectPreEncoded = MethodDescriptor<[UInt8], Hearth_V1_HubMessage>(
        service: service, method: "Connect", kind: .bidirectionalStreaming,
        requestCodec: MessageCodec(serialize: { $0 }, deserialize: { _ in [] }),
        responseCodec: connect.responseCodec)
}

extension Hearth_V1_WatchRequest {
    /// The longest `update_interval_ms` a hub accepts (it refuses more with INVALID_ARGUMENT): a second, past
    /// which a wrong unit is likelier than a wish, and the change log would hold that long a backlog per
    /// watcher.
    public static let maxUpdateIntervalMs: UInt32 = 1000
}
