import Foundation
@testable import HearthHub
import NIOCore
import Testing

@Suite("Event loops per allowed CPU")
struct EventLoopsTests {
    @Test("Linux CPU lists are counted; anything else is not a list")
    func cpuLists() {
        #expect(EventLoops.cpuCount(list: "0") == 1)
        #expect(EventLoops.cpuCount(list: "\t0-1") == 2)
        #expect(EventLoops.cpuCount(list: "0-3,6,8-9") == 7)
        for bad in ["", "x", "3-1", "0-", "1-2-3", ","] {
            #expect(EventLoops.cpuCount(list: Substring(bad)) == nil, "\(bad)")
        }
    }

    @Test("this process's count is between one and NIO's core count; groups are shared per size")
    func allowed() {
        let allowed = EventLoops.allowedCPUs
        #expect(allowed >= 1)
        #expect(allowed <= System.coreCount)
        // What the kernel says this process may use, read independently of the parser.
        let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        if let mask = status?.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            let bits = mask.dropFirst("Cpus_allowed:".count).filter(\.isHexDigit)
                .reduce(0) { $0 + Int(String($1), radix: 16)!.nonzeroBitCount }
            #expect(allowed == min(bits, System.coreCount))
        }
        #expect(EventLoops.group(threads: 1) === EventLoops.group(threads: 1))
        #expect(EventLoops.group(threads: 0) === EventLoops.group(threads: 1))
    }
}
