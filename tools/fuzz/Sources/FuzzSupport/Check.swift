/// Stops the fuzzer with a message when an invariant of the code under test does not hold: libFuzzer
/// records the input as a crash. (`precondition` would do, but its message is lost in -O builds.)
public func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fatalError("fuzz invariant broken: \(message())", file: file, line: line) }
}
