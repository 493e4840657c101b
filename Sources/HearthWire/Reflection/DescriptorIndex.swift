import SwiftProtobuf

/// The .proto files a server describes, indexed for server reflection: each file's serialized
/// `FileDescriptorProto` by file name, the file that defines each fully qualified symbol, the extensions of
/// each message, and the services.
struct DescriptorIndex: Sendable {
    /// A symbol that reflection can look up, with the file that defines it.
    private(set) var fileBySymbol: [String: String] = [:]
    /// Serialized `FileDescriptorProto`s by file name.
    private(set) var files: [String: [UInt8]] = [:]
    /// Each file's imports, by file name.
    private(set) var dependencies: [String: [String]] = [:]
    /// Extension numbers by extended message (fully qualified, no leading dot), with the defining file.
    private(set) var extensions: [String: [Int32: String]] = [:]
    /// Fully qualified service names, sorted.
    private(set) var services: [String] = []

    /// - Parameter sets: serialized `google.protobuf.FileDescriptorSet`s; a file in several sets counts once.
    /// - Throws: ``ReflectionError`` when a set is not a valid `FileDescriptorSet`.
    init(sets: [[UInt8]]) throws(ReflectionError) {
        var serviceNames = Set<String>()
        for (index, bytes) in sets.enumerated() {
            let set: Google_Protobuf_FileDescriptorSet
            do {
                set = try Google_Protobuf_FileDescriptorSet(serializedBytes: bytes)
            } catch {
                throw ReflectionError("descriptor set \(index) is not a serialized FileDescriptorSet: \(error)")
            }
            for file in set.file where files[file.name] == nil {
                guard !file.name.isEmpty else { throw ReflectionError("descriptor set \(index) has a file without a name") }
                do {
                    files[file.name] = try file.serializedBytes()
                } catch {
                    throw ReflectionError("cannot serialize \(file.name): \(error)")
                }
                dependencies[file.name] = file.dependency
                add(file, services: &serviceNames)
            }
        }
        services = serviceNames.sorted()
    }

    private mutating func add(_ file: Google_Protobuf_FileDescriptorProto, services: inout Set<String>) {
        let prefix = file.package.isEmpty ? "" : file.package + "."
        for service in file.service {
            let name = prefix + service.name
            services.insert(name)
            fileBySymbol[name] = file.name
            for method in service.method { fileBySymbol[name + "." + method.name] = file.name }
        }
        for message in file.messageType { addMessage(message, prefix: prefix, file: file.name) }
        for enumeration in file.enumType { fileBySymbol[prefix + enumeration.name] = file.name }
        for field in file.extension { addExtension(field, file: file.name) }
    }

    private mutating func addMessage(_ message: Google_Protobuf_DescriptorProto, prefix: String, file: String) {
        let name = prefix + message.name
        fileBySymbol[name] = file
        for field in message.field { fileBySymbol[name + "." + field.name] = file }
        for nested in message.nestedType { addMessage(nested, prefix: name + ".", file: file) }
        for enumeration in message.enumType { fileBySymbol[name + "." + enumeration.name] = file }
        for field in message.extension { addExtension(field, file: file) }
    }

    private mutating func addExtension(_ field: Google_Protobuf_FieldDescriptorProto, file: String) {
        let extended = field.extendee.hasPrefix(".") ? String(field.extendee.dropFirst()) : field.extendee
        extensions[extended, default: [:]][field.number] = file
    }

    /// `name` and the files it imports, transitively, leaving out those in `sent` (which it updates). The
    /// file asked for always comes first, even if it was sent before.
    func fileWithDependencies(_ name: String, sent: inout Set<String>) -> [[UInt8]]? {
        guard let bytes = files[name] else { return nil }
        var result = [bytes]
        sent.insert(name)
        var queue = dependencies[name] ?? []
        while let next = queue.popLast() {
            guard !sent.contains(next), let file = files[next] else { continue }
            sent.insert(next)
            result.append(file)
            queue += dependencies[next] ?? []
        }
        return result
    }
}

/// Bad input to ``ReflectionService``: descriptor bytes that do not parse.
public struct ReflectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}
