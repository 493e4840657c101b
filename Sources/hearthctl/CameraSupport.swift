import Foundation
import HearthSDK

/// What the camera subcommands share: finding a device's camera trait and reading an SDP offer.
enum CameraSupport {
    /// The typed trait `T` of the device named `key` (id or name), from the endpoint that has it (the primary
    /// endpoint first).
    ///
    /// - Throws: `notFound` (exit 3) when no device has that id or name; `invalidArgument` (exit 4) when the
    ///   device exists but lacks the trait, i.e. it is not a camera: the argument names the wrong kind of device.
    static func trait<T: Trait>(_ type: T.Type, of key: String, in home: Home) async throws -> T {
        let device = try Resolve.device(key, in: try await home.devices().list())
        let instances = device.types.all.instances.sorted { $0.isPrimary && !$1.isPrimary }
        for instance in instances {
            if let trait = instance.traits[T.self] { return trait }
        }
        let name = Catalog.builtin.trait(T.traitID)?.name ?? "\(T.traitID)"
        throw Failure(.invalidArgument, "\(device.name) (\(device.id)) is not a camera: it has no \(name) trait")
    }

    /// The offer in the file at `path`, or on standard input for `-`.
    ///
    /// - Throws: `invalidArgument` when the file cannot be read, when standard input is a terminal (nothing
    ///   was piped), or when the offer is empty. Whether the text is valid SDP is the camera's to say.
    static func readOffer(_ path: String) throws -> String {
        let data: Data
        if path == "-" {
            guard isatty(FileHandle.standardInput.fileDescriptor) == 0 else {
                throw Failure(.invalidArgument, "no offer: pipe an SDP offer on standard input or pass --offer-file PATH")
            }
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw Failure(.invalidArgument, "cannot read the offer file \(path): \(error.localizedDescription)")
            }
        }
        let offer = String(decoding: data, as: UTF8.self)
        guard !offer.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw Failure(.invalidArgument, "the offer is empty (\(path == "-" ? "standard input" : path))")
        }
        return offer
    }
}
