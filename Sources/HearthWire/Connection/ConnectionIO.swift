internal import NIOCore

/// The byte-moving half of a connection handler, shared by server and
/// client: feeds nghttp2, coalesces flushes, respects the channel's
/// writability, and runs keepalive PINGs. Confined to the event loop.
final class ConnectionIO {
    enum PingVerdict { case fine, tooManyPings }

    let session: NGHTTP2Session
    let context: ChannelHandlerContext
    let keepalive: ConnectionConfiguration.Keepalive
    /// Where bytes handed to NIO and not yet written to the socket are counted (server connections).
    let budget: ConnectionBudget?
    var eventLoop: any EventLoop { context.eventLoop }

    /// Minimum time between client PINGs a server tolerates, and how many
    /// early ones it forgives (gRPC's defaults: 5 minutes, 2 strikes).
    var minPingInterval: Duration = .seconds(300)
    var maxPingStrikes = 2

    private var inReadBatch = false
    private var flushScheduled = false
    /// Set while bytes are being drained: nghttp2 callbacks that run then
    /// must not drain again (mem_send is not re-entrant).
    private var flushing = false
    private var closing = false
    private var stopped = false
    private var lastActivity = NIODeadline.now()
    private var keepaliveTimer: Scheduled<Void>?
    private var pingTimeout: Scheduled<Void>?
    private var lastPingReceived: NIODeadline?
    private var pingStrikes = 0
    /// RST_STREAMs to send once the frames queued before them are written.
    private var resetsAfterFlush: [(Int32, UInt32)] = []

    init(
        session: NGHTTP2Session, context: ChannelHandlerContext, keepalive: ConnectionConfiguration.Keepalive,
        budget: ConnectionBudget? = nil
    ) {
        self.session = session
        self.context = context
        self.keepalive = keepalive
        self.budget = budget
    }

    /// Sends our preface and starts keepalive.
    func start() {
        guard !stopped else { return }
        flush()
        scheduleKeepalive()
    }

    func stop() {
        stopped = true
        keepaliveTimer?.cancel()
        pingTimeout?.cancel()
    }

    /// Feeds bytes read from the socket.
    func receive(_ buffer: ByteBuffer) {
        inReadBatch = true
        lastActivity = .now()
        do {
            try session.receive(buffer)
        } catch {
            // nghttp2 queued a GOAWAY for the violation; send it, then close.
            inReadBatch = false
            closeAfterFlush()
        }
    }

    /// The end of a batch of reads: one flush for all of them.
    func endOfReadBatch() {
        inReadBatch = false
        flush()
    }

    /// Flushes at the end of this loop tick (or of the read batch), so that
    /// many calls writing at once share one socket write.
    func flushSoon() {
        guard !inReadBatch, !flushScheduled else { return }
        flushScheduled = true
        eventLoop.assumeIsolated().execute { [self] in
            flushScheduled = false
            flush()
        }
    }

    /// Resets a stream after what is queued for it (say, a trailers-only
    /// answer) has been written: nghttp2 may otherwise send the RST_STREAM
    /// first, and the peer would lose the status.
    func resetAfterFlush(streamID: Int32, errorCode: UInt32) {
        resetsAfterFlush.append((streamID, errorCode))
        flushSoon()
    }

    /// Writes what nghttp2 has queued, while the channel takes it.
    func flush() {
        guard !inReadBatch, !stopped else { return }
        guard !flushing else {
            flushSoon()
            return
        }
        flushing = true
        defer { flushing = false }
        let channel = context.channel
        var wrote = false
        while channel.isWritable || closing {
            if !resetsAfterFlush.isEmpty, !session.wantsWrite {
                for (streamID, code) in resetsAfterFlush { session.resetStream(streamID: streamID, errorCode: code) }
                resetsAfterFlush.removeAll()
            }
            // Nothing queued: no buffer (a flush after every write used to allocate one just to find it empty).
            guard session.wantsWrite else { break }
            var buffer = channel.allocator.buffer(capacity: 16 * 1024)
            do {
                // At most 64 KiB past the channel's high watermark wait in NIO for a peer that stopped reading.
                try session.drainOutbound(into: &buffer, limit: 64 * 1024)
            } catch {
                context.close(promise: nil)
                return
            }
            guard buffer.readableBytes > 0 else { break }
            if let budget {
                // Held by NIO until the socket takes it: memory a peer that stops reading makes us keep.
                let held = buffer.capacity
                budget.queued(held)
                let written = eventLoop.makePromise(of: Void.self)
                written.futureResult.whenComplete { _ in budget.queued(-held) }
                context.write(NIOAny(buffer), promise: written)
            } else {
                context.write(NIOAny(buffer), promise: nil)
            }
            // Flushed chunk by chunk (64 KiB each): the channel's writability only says "stop" for bytes
            // handed to the socket, so writes left unflushed would let this loop take all nghttp2 has.
            context.flush()
            wrote = true
        }
        if wrote { lastActivity = .now() }
        if closing || !session.isAlive {
            closing = true
            context.close(promise: nil)
        }
    }

    /// Flushes what is queued (such as a GOAWAY), then closes.
    /// Safe to call from inside nghttp2 callbacks: the flush happens after
    /// the current one has written its bytes.
    func closeAfterFlush() {
        closing = true
        flushSoon()
    }

    func schedule(after delay: Duration, _ body: @escaping () -> Void) {
        eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay.nanosecondsClamped))) { body() }
    }

    func streamOpened() {
        pingStrikes = 0
    }
}

// MARK: - Keepalive

extension ConnectionIO {
    private func scheduleKeepalive() {
        guard let interval = keepalive.interval, !stopped else { return }
        keepaliveTimer = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(interval.nanosecondsClamped))) {
            [self] in
            let quiet = NIODeadline.now() - lastActivity
            if quiet >= .nanoseconds(Int64(interval.nanosecondsClamped)) && pingTimeout == nil {
                session.ping()
                flush()
                pingTimeout = eventLoop.assumeIsolated().scheduleTask(
                    in: .nanoseconds(Int64(keepalive.timeout.nanosecondsClamped))
                ) { [self] in
                    // No ack in time: the peer or the path is dead.
                    context.close(promise: nil)
                }
            }
            scheduleKeepalive()
        }
    }

    func pingAcknowledged() {
        pingTimeout?.cancel()
        pingTimeout = nil
        lastActivity = .now()
    }

    /// Applies the ping-strike policy to a PING from the peer (nghttp2 has
    /// already queued its ACK).
    func pingReceived(hasActiveStreams: Bool) -> PingVerdict {
        let now = NIODeadline.now()
        defer { lastPingReceived = now }
        guard !hasActiveStreams, let last = lastPingReceived else { return .fine }
        if now - last < .nanoseconds(Int64(minPingInterval.nanosecondsClamped)) {
            pingStrikes += 1
            return pingStrikes > maxPingStrikes ? .tooManyPings : .fine
        }
        return .fine
    }
}

extension Duration {
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : ns + attoseconds / 1_000_000_000
    }
}
