import HearthModel
import HearthTypes
import Synchronization

/// An in-memory sender that records every call and answers commands from a table.
final class RecordingSender: TraitCommandSender {
    struct Invocation: Hashable, Sendable {
        var trait: TraitID
        var command: CommandID
        var fields: Value
    }

    struct Write: Hashable, Sendable {
        var trait: TraitID
        var attributes: [AttributeID: Value]
    }

    private let state = Mutex<(invocations: [Invocation], writes: [Write])>(([], []))
    private let answers: [CommandID: Value]

    init(answers: [CommandID: Value] = [:]) {
        self.answers = answers
    }

    var invocations: [Invocation] { state.withLock { $0.invocations } }
    var writes: [Write] { state.withLock { $0.writes } }

    func invoke(trait: TraitID, command: CommandID, fields: Value) async throws -> Value {
        state.withLock { $0.invocations.append(Invocation(trait: trait, command: command, fields: fields)) }
        return answers[command] ?? .null
    }

    func write(trait: TraitID, attributes: [AttributeID: Value]) async throws {
        state.withLock { $0.writes.append(Write(trait: trait, attributes: attributes)) }
    }
}
