/// What starting a call takes once its head is valid, shared by HTTP/2 streams and gRPC-Web over HTTP/1.1:
/// the method's handler, the call gate's verdict on its credentials, a handler slot, then the call itself.
struct CallStart {
    let configuration: WireServer.Configuration
    let router: ServiceRouter
    let admission: CallAdmission
    let budget: ConnectionBudget

    enum Verdict {
        /// Answer with this status at once; no handler slot was taken.
        case refuse(Status)
        /// Every handler slot is taken: the call was not processed and may be retried elsewhere.
        case overloaded
        /// Start the call with this handler; a slot is taken, which the call releases when it ends.
        case admitted(ServiceRouter.Handler)
    }

    /// Finds the handler, runs the call gate and takes a handler slot, in that order.
    func admit(_ head: ServerStreamStateMachine.RequestHead) -> Verdict {
        guard let handler = router.handler(for: head.path) else {
            return .refuse(Status(code: .unimplemented, message: "method \(head.path) is not implemented"))
        }
        // Credentials are checked here, before a body is buffered or a handler slot taken.
        if let gate = configuration.callGate, let refusal = gate(head.path, head.metadata) {
            budget.server.countUnauthenticatedRefusal()
            return .refuse(refusal)
        }
        guard admission.tryAdmit() else { return .overloaded }
        return .admitted(handler)
    }

    /// The call for an admitted head: its bridge (which calls `notify` when the loop must act) and context.
    func makeCall(
        _ head: ServerStreamStateMachine.RequestHead, handler: ServiceRouter.Handler, peer: String,
        notify: @escaping @Sendable (StreamBridge.LoopRequest) -> Void
    ) -> ServerCall {
        let compression = responseCompression(for: head)
        let bridge = StreamBridge(
            limits: configuration.connection.bridgeLimits, budget: budget, outboundCompression: compression,
            notify: notify)
        let context = ServerContext(
            path: head.path, requestMetadata: head.metadata,
            deadline: head.timeout.map { ContinuousClock.now + $0.duration }, peer: peer,
            requestEncoding: head.encoding, compression: compression)
        return ServerCall(bridge: bridge, context: context, handler: handler, admission: admission)
    }

    /// The response encodings a call may use (enabled here and accepted by the client) and the one it starts
    /// with, as ``WireServer/Configuration/responseCompression`` says.
    private func responseCompression(for head: ServerStreamStateMachine.RequestHead) -> OutboundCompression {
        let allowed = configuration.connection.compression.enabledEncodings.filter(head.acceptedEncodings.contains)
        let initial: MessageEncoding? =
            switch configuration.responseCompression.policy {
            case .off: nil
            case .matchRequest: head.encoding.flatMap { allowed.contains($0) ? $0 : nil }
            case .preferred(let encoding): allowed.contains(encoding) ? encoding : nil
            }
        return allowed.isEmpty ? .none : OutboundCompression(encoding: initial, allowed: allowed)
    }
}
