import Foundation
import HearthSDK

/// "Rooms with their devices", the usual Combine way: `combineLatest` of two `batched()` publishers, a
/// `.catch`, and `assign(to:)` into a view model's `@Published` property.
///
/// In a `@MainActor` view model every closure is main-actor code, so values go to the main queue first
/// (`receive(on:)`), as the guides do before touching the UI: Swift 6 stops a program whose main-actor
/// closure runs elsewhere, with Apple's Combine as with this one.
@MainActor
final class RoomsViewModel: ObservableObject {
    @Published var roomSummaries: [String] = []
    private var cancellables = Set<AnyCancellable>()
    let home: Home

    init(home: Home) { self.home = home }

    func run() async throws {
        home.rooms().batched()
            .combineLatest(home.devices().batched())
            .receive(on: DispatchQueue.main)
            .map { rooms, devices in
                rooms.sorted { $0.name < $1.name }.map { room in
                    "\(room.name): \(devices.filter { $0.roomID == room.id }.count) devices"
                }
            }
            .catch { error -> Just<[String]> in
                print("could not load rooms: \(error)")
                return Just([])
            }
            .assign(to: &$roomSummaries)

        // The same pair with a value-only sink straight on the HomeError publishers.
        var pairs = 0
        Self.counts(home)
            .receive(on: DispatchQueue.main)
            .sink { rooms, devices in
                pairs += 1
                print("combined: \(rooms) rooms, \(devices) devices")
            }
            .store(in: &cancellables)

        for await summaries in $roomSummaries.values where !summaries.isEmpty {
            for line in summaries { print(line) }
            break
        }
        // Both chains deliver on the main queue, in no fixed order between them: give the second its turn.
        for _ in 0..<1000 where pairs == 0 { try await Task.sleep(for: .milliseconds(10)) }
        guard pairs > 0 else { throw GuideFailure("the value-only sink saw nothing") }
    }

    /// `combineLatest` with a transform, in nonisolated code: the transform runs wherever the values come.
    nonisolated static func counts(_ home: Home) -> AnyPublisher<(Int, Int), HomeError> {
        home.rooms().batched()
            .combineLatest(home.devices().batched()) { rooms, devices in (rooms.count, devices.count) }
            .eraseToAnyPublisher()
    }
}
