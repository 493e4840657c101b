import HearthProto
public import HearthWire

extension AccessControl {
    /// The wire's call gate: checks a call's token at HEADERS, before a message is buffered or a handler
    /// slot taken, so that calls without valid credentials cost the hub nothing however long they are
    /// held open. Health checks need no token, nor does server reflection (it describes the public .proto
    /// files, nothing of the home). Each handler still resolves its principal itself; this
    /// only refuses early what the handler would refuse.
    /// - Returns: the refusal (UNAUTHENTICATED or PERMISSION_DENIED), or nil to let the call in.
    public func gate(path: String, metadata: Metadata) -> Status? {
        if path.hasPrefix("/grpc.health.v1.Health/") || path.hasPrefix("/grpc.reflection.v1.ServerReflection/")
            || path.hasPrefix("/grpc.reflection.v1alpha.ServerReflection/")
        {
            return nil
        }
        let principal: Principal
        do {
            principal = try authenticate(authorization: metadata.string(for: "authorization"))
        } catch {
            return Status(code: error.code.status, message: error.message)
        }
        let driverService = path.hasPrefix(Self.driverServicePrefix)
        switch principal {
        case .driver where path.hasPrefix(Self.homeServicePrefix):
            return Status(code: .permissionDenied, message: "a driver token cannot call the home service")
        case .user where driverService:
            return Status(code: .permissionDenied, message: "a client token cannot connect as a driver")
        default:
            return nil
        }
    }

    private static let driverServicePrefix = "/\(DriverMethods.service)/"
    private static let homeServicePrefix = "/\(HomeMethods.service)/"
}
