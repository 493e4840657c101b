import HearthModel
import Testing

@Suite("Backoff: doubling, capped, jitter only shortens")
struct BackoffTests {
    @Test("each attempt doubles the wait up to the cap", arguments: [
        (0, Duration.seconds(1)), (1, .seconds(2)), (2, .seconds(4)), (3, .seconds(8)), (4, .seconds(10)), (1000, .seconds(10)),
    ])
    func doubling(attempt: Int, expected: Duration) {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(10), jitter: 0.5)
        #expect(backoff.delay(attempt: attempt, random: 0) == expected)
    }

    @Test("random 1 takes off the jitter share; out-of-range inputs are clamped")
    func jitter() {
        let backoff = Backoff(initial: .seconds(4), maximum: .seconds(10), jitter: 0.25)
        #expect(backoff.delay(attempt: 0, random: 1) == .seconds(3))
        #expect(backoff.delay(attempt: 0, random: 7) == .seconds(3))
        #expect(backoff.delay(attempt: -3, random: -1) == .seconds(4))
        #expect(Backoff(jitter: 9).jitter == 1)
    }
}
