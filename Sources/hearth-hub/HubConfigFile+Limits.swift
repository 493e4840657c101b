import HearthHub
import HearthModel
import HearthWire

/// The `limits` object of the config file: what a peer may make the hub hold or parse. Every key is
/// optional and defaults to the library's value; `Docs/Security.md` says what each one answers.
struct LimitsEntry: Decodable {
    var maxMessageBytes: Int?
    var maxHeaderListBytes: Int?
    var maxConcurrentStreams: Int?
    var maxRunningCalls: Int?
    var partialMessageBytesPerConnection: Int?
    var partialMessageBytesPerServer: Int?
    var queuedOutboundBytesPerConnection: Int?
    var queuedOutboundBytesPerServer: Int?
    var firstMessageTimeoutMs: Int?
    var maxSchemaBytes: Int?
    var maxJSONDepth: Int?
    var maxTypeNesting: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case maxMessageBytes = "max_message_bytes"
        case maxHeaderListBytes = "max_header_list_bytes"
        case maxConcurrentStreams = "max_concurrent_streams"
        case maxRunningCalls = "max_running_calls"
        case partialMessageBytesPerConnection = "partial_message_bytes_per_connection"
        case partialMessageBytesPerServer = "partial_message_bytes_per_server"
        case queuedOutboundBytesPerConnection = "queued_outbound_bytes_per_connection"
        case queuedOutboundBytesPerServer = "queued_outbound_bytes_per_server"
        case firstMessageTimeoutMs = "first_message_timeout_ms"
        case maxSchemaBytes = "max_schema_bytes"
        case maxJSONDepth = "max_json_depth"
        case maxTypeNesting = "max_type_nesting"
    }

    /// Applies the keys that are set; each must be positive.
    func apply(to configuration: inout Hub.Configuration) throws {
        func positive(_ value: Int?, _ key: CodingKeys) throws -> Int? {
            guard let value else { return nil }
            guard value > 0 else { throw ConfigError("config: limits.\(key.rawValue) must be positive, got \(value)") }
            return value
        }
        var wire = configuration.wire
        if let v = try positive(maxMessageBytes, .maxMessageBytes) { wire.connection.limits.maxReceiveMessageSize = v }
        if let v = try positive(maxHeaderListBytes, .maxHeaderListBytes) { wire.connection.limits.maxHeaderListSize = v }
        if let v = try positive(maxConcurrentStreams, .maxConcurrentStreams) { wire.connection.limits.maxConcurrentStreams = v }
        if let v = try positive(maxRunningCalls, .maxRunningCalls) { wire.maxRunningHandlers = v }
        if let v = try positive(partialMessageBytesPerConnection, .partialMessageBytesPerConnection) {
            wire.connection.budgets.partialMessageBytesPerConnection = v
        }
        if let v = try positive(partialMessageBytesPerServer, .partialMessageBytesPerServer) {
            wire.connection.budgets.partialMessageBytesPerServer = v
        }
        if let v = try positive(queuedOutboundBytesPerConnection, .queuedOutboundBytesPerConnection) {
            wire.connection.budgets.queuedOutboundBytesPerConnection = v
        }
        if let v = try positive(queuedOutboundBytesPerServer, .queuedOutboundBytesPerServer) {
            wire.connection.budgets.queuedOutboundBytesPerServer = v
        }
        if let v = try positive(firstMessageTimeoutMs, .firstMessageTimeoutMs) {
            wire.connection.budgets.firstMessageTimeout = .milliseconds(v)
        }
        configuration.wire = wire
        var input = configuration.engine.inputLimits
        if let v = try positive(maxSchemaBytes, .maxSchemaBytes) { input.maxSchemaBytes = v }
        if let v = try positive(maxJSONDepth, .maxJSONDepth) { input.maxJSONDepth = v }
        if let v = try positive(maxTypeNesting, .maxTypeNesting) {
            guard v <= ValueType.maxListNesting else {
                throw ConfigError("config: limits.max_type_nesting must be at most \(ValueType.maxListNesting), got \(v)")
            }
            input.maxTypeNesting = v
        }
        configuration.engine.inputLimits = input
    }
}
