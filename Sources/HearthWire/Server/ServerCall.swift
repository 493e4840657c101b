/// One accepted call, ready to run in the server's task group.
struct ServerCall: Sendable {
    let bridge: StreamBridge
    let context: ServerContext
    let handler: ServiceRouter.Handler
    let admission: CallAdmission

    /// Runs the handler and turns its outcome into the call's status.
    func run() async {
        bridge.attachCurrentTask()
        defer {
            bridge.detachTask()
            admission.release()
        }
        let status: Status
        var trailers = Metadata()
        do {
            try await handler.run(bridge, context)
            status = .ok
        } catch let error as RPCError {
            status = error.status
            trailers = error.metadata
        } catch is CancellationError {
            status = Status(code: .cancelled, message: "call cancelled")
        } catch {
            status = Status(code: .unknown, message: "handler failed")
        }
        var all = context.trailingMetadata
        for entry in trailers { all.append(entry) }
        bridge.finishOutbound(.finished(status, all))
    }
}
