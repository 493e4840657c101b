public import OpenCombineShim
import Logging

/// Where HearthSDK logs what has no caller to go to (a failure that `sink(receiveValue:)` cannot hand back).
let sdkLogger = Logger(label: "hearth.sdk")

extension Publisher where Failure == HomeError {
    /// Attaches a subscriber that takes values only, as the Home APIs' guides write it:
    /// `device.types.subscribe(OnOffLightDeviceType.self).sink { light in … }`.
    ///
    /// Combine offers this form only for publishers that cannot fail; HearthSDK's publishers fail with a
    /// ``HomeError`` (the home closed, the hub refused the token, a subscriber fell too far behind). Here a
    /// failure is logged at `error` level through swift-log (label `hearth.sdk`) and the subscription ends;
    /// nothing else happens. To act on the error, use `sink(receiveCompletion:receiveValue:)`, or turn it
    /// into a value first with `.catch { … }`, `.replaceError(with:)` or `.assertNoFailure()`.
    ///
    /// When the home's cache is synced, the current value arrives before this returns.
    /// - Parameter receiveValue: called with each value, serially.
    /// - Returns: the subscription; dropping it cancels it.
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(
            receiveCompletion: { completion in
                guard case .failure(let error) = completion else { return }
                sdkLogger.error(
                    "a subscription without a completion handler ended", metadata: ["error": "\(error)"])
            },
            receiveValue: receiveValue)
    }
}
