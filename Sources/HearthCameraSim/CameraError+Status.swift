import HearthWire

extension CameraError {
    /// The error the caller sees: the status ``Code`` names, with ``message``.
    var rpc: RPCError {
        let status: Status.Code =
            switch code {
            case .invalidArgument: .invalidArgument
            case .notFound: .notFound
            case .failedPrecondition: .failedPrecondition
            case .resourceExhausted: .resourceExhausted
            case .unavailable: .unavailable
            default: .internal
            }
        return RPCError(code: status, message: message)
    }

    /// Runs `body`, turning a ``CameraError`` into the ``rpc`` error a handler throws.
    static func mapped<R>(_ body: () throws(CameraError) -> R) throws(RPCError) -> R {
        do {
            return try body()
        } catch {
            throw error.rpc
        }
    }
}
