// The command line both benchmark servers share: `--port N` (default 0) or `--unix PATH`, and the
// `LISTENING …` line run.sh waits for.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a benchmark server listens.
public enum Listen: Sendable {
    /// 127.0.0.1 and this port (0: the OS picks).
    case port(Int)
    case unix(String)

    /// Parses the process's arguments; prints usage and exits on `--help` or a mistake.
    public static func fromCommandLine(program: String) -> Listen {
        let usage = "usage: \(program) [--port N | --unix PATH] [--tls-cert PEM --tls-key PEM]   (default --port 0)"
        func fail(_ problem: String) -> Never {
            var message = "error: \(problem)\n\(usage)\n"
            message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            exit(2)
        }
        var listen = Listen.port(0)
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--port":
                guard let value = arguments.popFirst(), let number = Int(value), (0...65535).contains(number) else {
                    fail("--port needs a number from 0 to 65535")
                }
                listen = .port(number)
            case "--unix":
                guard let value = arguments.popFirst(), !value.isEmpty else { fail("--unix needs a path") }
                listen = .unix(value)
            case "--tls-cert", "--tls-key":
                guard arguments.popFirst() != nil else { fail("\(argument) needs a path") }
                // Read by `TLSFiles.fromCommandLine()`.
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                fail("unknown argument '\(argument)'")
            }
        }
        return listen
    }

    /// Prints `LISTENING <port>` or `LISTENING unix:<path>` and flushes (stdout may be a pipe).
    public func announce(boundPort: Int?) {
        switch self {
        case .port(let port): print("LISTENING \(boundPort ?? port)")
        case .unix(let path): print("LISTENING unix:\(path)")
        }
        fflush(nil)
    }
}

/// `--tls-cert PEM --tls-key PEM`: serve TLS (ALPN h2) with this certificate and key.
public struct TLSFiles: Sendable {
    public var certificate: String
    public var key: String

    /// The files from the process's arguments, or nil for plaintext (h2c). Both or neither.
    public static func fromCommandLine() -> TLSFiles? {
        var certificate: String?
        var key: String?
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            if argument == "--tls-cert" { certificate = arguments.popFirst() }
            if argument == "--tls-key" { key = arguments.popFirst() }
        }
        guard let certificate, let key else { return nil }
        return TLSFiles(certificate: certificate, key: key)
    }
}
