public import HearthModel
public import HearthTypes
import HearthWire
import Synchronization

/// What a command handler is given: the device, the endpoint, the arguments, and the caller's deadline.
public struct CommandContext: Sendable {
    /// The device the command is for.
    public let device: DriverDevice
    /// The endpoint (device-type instance) it addresses.
    public let endpoint: UInt32
    /// The trait and command.
    public let trait: TraitID
    public let command: CommandID
    /// The arguments by field id (already checked against the catalog by the hub).
    public let fields: [FieldID: Value]
    /// When the caller stops waiting; the handler is cancelled then.
    public let deadline: ContinuousClock.Instant
}

/// What a write handler is given: the device, the endpoint, the trait and the values to write.
public struct WriteContext: Sendable {
    public let device: DriverDevice
    public let endpoint: UInt32
    public let trait: TraitID
    /// The values to write by attribute id (already checked for type and writability by the hub).
    public let attributes: [AttributeID: Value]
    public let deadline: ContinuousClock.Instant
}

/// The driver's command and write handlers, by trait and command.
final class HandlerTable: Sendable {
    typealias Command = @Sendable (CommandContext) async throws -> Value
    typealias Write = @Sendable (WriteContext) async throws -> Void

    struct Key: Hashable { var trait: TraitID; var command: CommandID }

    private let commands = Mutex<[Key: Command]>([:])
    private let writes = Mutex<[TraitID: Write]>([:])

    func setCommand(trait: TraitID, command: CommandID, _ handler: @escaping Command) {
        commands.withLock { $0[Key(trait: trait, command: command)] = handler }
    }

    func setWrite(trait: TraitID, _ handler: @escaping Write) {
        writes.withLock { $0[trait] = handler }
    }

    func command(trait: TraitID, command: CommandID) -> Command? {
        commands.withLock { $0[Key(trait: trait, command: command)] }
    }

    func write(trait: TraitID) -> Write? { writes.withLock { $0[trait] } }
}

extension Driver {
    /// Handles a command with typed arguments: `driver.onCommand(Matter.OnOffTrait.OnCommand.self) { _, context in … }`.
    ///
    /// Throw `RPCError` to refuse with a status the caller sees (e.g. `.failedPrecondition`). Arguments that
    /// do not decode reach the caller as INVALID_ARGUMENT without calling the handler.
    public func onCommand<C: TraitCommand>(
        _ command: C.Type, _ handler: @escaping @Sendable (C, CommandContext) async throws -> Void
    ) {
        onCommand(command, responding: EmptyResponse.self) { arguments, context in
            try await handler(arguments, context)
            return EmptyResponse()
        }
    }

    /// Handles a command that answers with a response: `onCommand(StartLiveViewCommand.self, responding: StartLiveViewResponse.self) { … }`.
    public func onCommand<C: TraitCommand, R: ValueConvertible>(
        _ command: C.Type, responding: R.Type, _ handler: @escaping @Sendable (C, CommandContext) async throws -> R
    ) {
        onCommand(trait: C.OwnerTrait.traitID, command: C.id) { context in
            guard let arguments = C(value: .struct(context.fields)) else {
                throw RPCError(code: .invalidArgument, message: "the arguments do not fit \(C.self)")
            }
            return try await handler(arguments, context).value
        }
    }

    /// Handles a command by ids with raw values (vendor traits without generated code). Return `.struct`
    /// response fields, or `.null` for none.
    public func onCommand(
        trait: TraitID, command: CommandID, _ handler: @escaping @Sendable (CommandContext) async throws -> Value
    ) {
        handlers.setCommand(trait: trait, command: command, handler)
    }

    /// Handles attribute writes to a trait before they are applied. Throw to refuse; return to accept: the
    /// values are then stored and reported. Without a handler, writes are accepted as they come.
    public func onWrite<T: Trait>(
        _ trait: T.Type, _ handler: @escaping @Sendable (T.Attributes, WriteContext) async throws -> Void
    ) {
        handlers.setWrite(trait: T.traitID) { context in
            try await handler(T.Attributes(values: context.attributes), context)
        }
    }
}

/// A response with no fields.
struct EmptyResponse: ValueConvertible {
    init() {}
    init?(value: Value) {}
    var value: Value { .null }
}
