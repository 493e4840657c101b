/// Settings shared by server and client connections.
public struct ConnectionConfiguration: Sendable {
    /// Message and header limits.
    public struct Limits: Sendable {
        /// The largest message accepted; larger ones end the call with
        /// RESOURCE_EXHAUSTED before their bytes are buffered. gRPC's default: 4 MiB.
        public var maxReceiveMessageSize = 4 * 1024 * 1024
        /// The largest header list accepted (name + value + 32 per field,
        /// as HTTP/2 counts). gRPC's suggested default: 8 KiB.
        public var maxHeaderListSize = 8 * 1024
        /// SETTINGS_MAX_CONCURRENT_STREAMS sent to the peer. gRPC's default: 100.
        public var maxConcurrentStreams = 100
        public init() {}
    }

    /// Flow control and buffering.
    public struct FlowControl: Sendable {
        /// SETTINGS_INITIAL_WINDOW_SIZE: how much a peer may send on one
        /// stream before the reader takes messages. Default 1 MiB.
        public var initialStreamWindow = 1024 * 1024
        /// The connection-level receive window. Default 16 MiB.
        public var connectionWindow = 16 * 1024 * 1024
        /// Received bytes queued for a reader before the window stops being
        /// returned. Default 256 KiB.
        public var inboundHighWatermark = 256 * 1024
        /// Queued outbound bytes at which writers suspend. Default 256 KiB;
        /// they resume below a quarter of it.
        public var outboundHighWatermark = 256 * 1024
        public init() {}
    }

    /// Keepalive pings.
    public struct Keepalive: Sendable {
        /// How long a connection may be quiet before we PING it; nil: never.
        public var interval: Duration?
        /// How long to wait for the PING's ack before closing the connection.
        public var timeout: Duration = .seconds(20)
        public init(interval: Duration? = nil, timeout: Duration = .seconds(20)) {
            self.interval = interval
            self.timeout = timeout
        }
    }

    /// nghttp2's flood protections (all on by default in the library; the
    /// values here are its defaults).
    public struct FloodProtection: Sendable {
        /// Rapid-reset limit: a token bucket of this many RST_STREAMs…
        public var streamResetBurst: UInt64 = 1000
        /// …refilled at this rate per second.
        public var streamResetRate: UInt64 = 33
        /// CONTINUATION frames allowed after one HEADERS frame.
        public var maxContinuations = 8
        /// Entries allowed in one SETTINGS frame.
        public var maxSettingsEntries = 32
        /// Queued outbound ACK frames (PING/SETTINGS) before the peer is cut off.
        public var maxOutboundAck = 1000
        public init() {}
    }

    /// Memory and time a peer may make a server hold; past a budget the call is refused with
    /// RESOURCE_EXHAUSTED or the connection closed with GOAWAY ENHANCE_YOUR_CALM, and other peers are
    /// unaffected. `Docs/Security.md` names the attack each one answers.
    public struct Budgets: Sendable {
        /// Memory holding incomplete incoming messages of one connection at once, across its streams.
        /// Default 8 MiB (two largest messages).
        public var partialMessageBytesPerConnection = 8 * 1024 * 1024
        /// Memory holding incomplete incoming messages across the server. Default 16 MiB.
        public var partialMessageBytesPerServer = 16 * 1024 * 1024
        /// Memory holding what one connection's handlers queued for its peer (and what NIO has yet to
        /// write); past it the connection is closed with ENHANCE_YOUR_CALM (clients resume by revision).
        /// Default 8 MiB.
        public var queuedOutboundBytesPerConnection = 8 * 1024 * 1024
        /// The same across the server; past it, a stream whose reader is behind (more than its low
        /// watermark queued) is ended with RESOURCE_EXHAUSTED. Default 8 MiB.
        public var queuedOutboundBytesPerServer = 8 * 1024 * 1024
        /// How long a call may stay open without its first message. Default 30 s; nil: no limit.
        public var firstMessageTimeout: Duration? = .seconds(30)
        public init() {}
    }

    /// Message compression (`grpc-encoding`).
    public struct Compression: Sendable {
        /// The encodings taken from the peer and advertised in `grpc-accept-encoding`. A server refuses a
        /// request in any other encoding with UNIMPLEMENTED; a client fails a response in any other encoding
        /// with INTERNAL. A compressed message inflating past ``Limits/maxReceiveMessageSize`` is refused with
        /// RESOURCE_EXHAUSTED. Default: gzip and deflate. Empty: uncompressed messages only.
        public var enabledEncodings: [MessageEncoding] = MessageEncoding.all
        public init() {}
    }

    public var limits = Limits()
    public var compression = Compression()
    public var budgets = Budgets()
    public var flowControl = FlowControl()
    public var keepalive = Keepalive()
    public var floodProtection = FloodProtection()

    public init() {}

    /// The defaults, as documented on each field.
    public static var defaults: ConnectionConfiguration { ConnectionConfiguration() }

    var sessionOptions: NGHTTP2Session.Options {
        NGHTTP2Session.Options(
            maxConcurrentStreams: UInt32(limits.maxConcurrentStreams),
            initialWindowSize: UInt32(flowControl.initialStreamWindow),
            connectionWindowSize: Int32(flowControl.connectionWindow),
            maxHeaderListSize: UInt32(limits.maxHeaderListSize),
            streamResetBurst: floodProtection.streamResetBurst,
            streamResetRate: floodProtection.streamResetRate,
            maxContinuations: floodProtection.maxContinuations,
            maxSettings: floodProtection.maxSettingsEntries,
            maxOutboundAck: floodProtection.maxOutboundAck)
    }

    var bridgeLimits: StreamBridge.Limits {
        StreamBridge.Limits(
            maxReceiveMessageSize: limits.maxReceiveMessageSize,
            inboundHighWatermark: flowControl.inboundHighWatermark,
            inboundLowWatermark: flowControl.inboundHighWatermark / 4,
            outboundHighWatermark: flowControl.outboundHighWatermark,
            outboundLowWatermark: flowControl.outboundHighWatermark / 4)
    }
}
