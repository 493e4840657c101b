import Foundation
import HearthHub
import HearthProto
import SwiftProtobuf
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hub's HTTP/1.1 side on its gRPC port: the dashboard's files, the signed-in metrics page, and gRPC-Web
/// calls with the same tokens as native ones.
@Suite("Dashboard and gRPC-Web on the hub's listener")
struct HubDashboardTests {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    static func request(
        _ port: Int, _ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!, timeoutInterval: 20)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)".lowercased()] = "\(value)" }
        return Answer(status: http.statusCode, headers: fields, body: data)
    }

    /// A gRPC-Web call as a browser makes it: one framed message in, frames and the trailer frame out.
    static func grpcWeb(_ port: Int, _ method: String, token: String, message: Data = Data()) async throws -> Answer {
        var body = Data([0, 0, 0, 0, UInt8(message.count)])
        body.append(message)
        return try await request(
            port, "/hearth.v1.HomeService/\(method)", method: "POST",
            headers: ["content-type": "application/grpc-web+proto", "x-grpc-web": "1", "authorization": "Bearer \(token)"],
            body: body)
    }

    @Test("/ serves the embedded dashboard with safe headers; paths out of its folder and other methods are refused")
    func files() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let page = try await Self.request(client.port, "/")
                #expect(page.status == 200)
                #expect(page.headers["content-type"] == "text/html; charset=utf-8")
                #expect(page.headers["content-security-policy"]?.contains("default-src 'self'") == true)
                #expect(String(decoding: page.body, as: UTF8.self).contains("<html"))
                for path in ["/../Package.swift", "/.git", "/nope.js", "/a/b"] {
                    #expect(try await Self.request(client.port, path).status == 404, "\(path)")
                }
                #expect(try await Self.request(client.port, "/", method: "DELETE").status == 405)
            }
        }
    }

    @Test("/metrics on the gRPC port needs a client token")
    func metrics() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                #expect(try await Self.request(client.port, "/metrics").status == 401)
                let wrong = try await Self.request(client.port, "/metrics", headers: ["authorization": "Bearer nope"])
                #expect(wrong.status == 401)
                let page = try await Self.request(client.port, "/metrics", headers: ["authorization": "Bearer \(Tokens.viewer)"])
                #expect(page.status == 200)
                #expect(String(decoding: page.body, as: UTF8.self).contains("hearth_revision"))
            }
        }
    }

    @Test("gRPC-Web calls take the same tokens as native calls")
    func grpcWebTokens() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir) { _, client in
                let refused = try await Self.grpcWeb(client.port, "GetHub", token: "wrong")
                #expect(refused.status == 200)
                #expect(refused.headers["grpc-status"] == "16")
                let answer = try await Self.grpcWeb(client.port, "GetHub", token: Tokens.admin)
                #expect(answer.headers["content-type"] == "application/grpc-web+proto")
                let bytes = [UInt8](answer.body)
                #expect(bytes.count > 5 && bytes[0] == 0)
                let length = Int(bytes[1]) << 24 | Int(bytes[2]) << 16 | Int(bytes[3]) << 8 | Int(bytes[4])
                let info = try Hearth_V1_HubInfo(serializedBytes: Array(bytes[5..<(5 + length)]))
                let native = try await client.call(HomeMethods.getHub, .init())
                #expect(info.epoch == native.epoch)
                let trailer = String(decoding: bytes[(5 + length + 5)...], as: UTF8.self)
                #expect(bytes[5 + length] == 0x80)
                #expect(trailer.hasPrefix("grpc-status:0\r\n"))
                // The viewer may look but not rename: the same access rules as native gRPC.
                var rename = Hearth_V1_RenameStructureRequest()
                rename.structureID = "home"
                rename.name = "Cottage"
                let denied = try await Self.grpcWeb(
                    client.port, "RenameStructure", token: Tokens.viewer, message: try rename.serializedData())
                #expect(denied.headers["grpc-status"] == "7")
            }
        }
    }

    @Test("the dashboard can be switched off (gRPC-Web stays) or served from a folder")
    func configuration() async throws {
        try await withTemporaryDirectory { dir in
            try await withHub(directory: dir, configure: { $0.dashboard.enabled = false }) { _, client in
                #expect(try await Self.request(client.port, "/").status == 404)
                let answer = try await Self.grpcWeb(client.port, "GetHub", token: Tokens.admin)
                #expect(answer.status == 200 && answer.headers["grpc-status"] == nil)
            }
            let folder = dir.appendingPathComponent("web")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("from disk".utf8).write(to: folder.appendingPathComponent("index.html"))
            try Data("let x = 1".utf8).write(to: folder.appendingPathComponent("app.js"))
            try await withHub(directory: dir.appendingPathComponent("data"), configure: { $0.dashboard.directory = folder }) {
                _, client in
                #expect(String(decoding: try await Self.request(client.port, "/").body, as: UTF8.self) == "from disk")
                let script = try await Self.request(client.port, "/app.js")
                #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
            }
        }
    }
}
