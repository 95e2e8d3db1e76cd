import StreamIO
import Credentials
import Foundation
import HTTPServer
import ReferenceTarget
import WebSocket
import WebSocketClient
import XCTest

/// The client against the reference target's event channel, over real loopback sockets, ws and wss.
final class ReferenceChannelTests: XCTestCase {
    /// No gateway on port 9: the target's pushes fail and are counted; the socket is the path under test.
    private func serve(tls: TLSFiles? = nil) throws -> (ReferenceTarget, HTTPServer) {
        let target = ReferenceTarget(configuration: .init(gatewayURL: "http://127.0.0.1:9"))
        var configuration = HTTPServerConfiguration()
        configuration.tls = tls
        let server = HTTPServer(configuration: configuration, handler: target)
        try server.start()
        return (target, server)
    }

    private func startCall(_ port: Int, from caller: String, to number: String) -> String {
        let handle = "{\"kind\":\"phoneNumber\",\"value\":\"\(number)\",\"displayName\":\"x\"}"
        let (status, json) = httpRequest(port: port, "POST", "/v1/conversations",
                                         "{\"caller\":\"\(caller)\",\"handles\":[\(handle)]}")
        XCTAssertEqual(status, 201)
        return json["id"] as? String ?? ""
    }

    func testEventsFollowHTTPActionsAndSocketActionsAreAnsweredWithTheirId() throws {
        let (target, server) = try serve()
        let client = ClientHarness()
        defer { client.shutDown(); server.stop(); target.close() }
        let port = server.port
        registerDevice(port, "alice", "+1")
        registerDevice(port, "bob", "+2")
        let bob = try client.open("ws://127.0.0.1:\(port)/v1/events?device=bob", headers: [("X-App", "t")])
        let alice = try client.open("ws://127.0.0.1:\(port)/v1/events?device=alice", seed: 2)
        client.waitOpen(bob)
        client.waitOpen(alice)
        XCTAssertTrue(client.wait { target.eventSocketsOpen == 2 })

        let id = startCall(port, from: "alice", to: "+2")
        XCTAssertTrue(client.wait { client.json(bob).contains { $0["event"] as? String == "updated" } })
        let first = try XCTUnwrap(client.json(bob).first)
        XCTAssertEqual(first["uuid"] as? String, id)
        XCTAssertEqual((first["conversation"] as? [String: Any])?["id"] as? String, id)
        XCTAssertNotNil(first["sentAt"] as? Int)

        // Bob answers over the socket: the answer echoes his id and carries the HTTP answer's JSON.
        let action = "{\"id\":\"a-1\",\"op\":\"join\",\"conversation\":\"\(id)\",\"reportedAt\":1}"
        XCTAssertTrue(client.onQueue { $0.send(bob, text: action) })
        XCTAssertTrue(client.wait { client.json(bob).contains { $0["id"] as? String == "a-1" } })
        let answer = try XCTUnwrap(client.json(bob).first { $0["id"] as? String == "a-1" })
        XCTAssertEqual(answer["status"] as? Int, 200)
        XCTAssertEqual((answer["body"] as? [String: Any])?["state"] as? String, "joined")
        XCTAssertTrue(client.wait { client.json(alice).contains { $0["event"] as? String == "joined" } })

        // A second socket of Alice's (an app that reconnected) gets the conversation's state at once.
        let again = try client.open("ws://127.0.0.1:\(port)/v1/events?device=alice", seed: 3)
        XCTAssertTrue(client.wait { !client.json(again).isEmpty })
        XCTAssertEqual((client.json(again)[0]["conversation"] as? [String: Any])?["state"] as? String, "joined")

        // Alice ends over HTTP: Bob's socket hears it.
        XCTAssertEqual(httpRequest(port: port, "POST", "/v1/conversations/\(id)/end", "{\"device\":\"alice\"}").0, 200)
        XCTAssertTrue(client.wait { client.json(bob).contains { $0["event"] as? String == "ended" } })

        // Bad actions are answered, not dropped; the id is echoed even for errors.
        client.onQueue { $0.send(bob, text: "{\"id\":7,\"op\":\"fly\",\"conversation\":\"x\"}") }
        XCTAssertTrue(client.wait { client.json(bob).contains { $0["id"] as? Int == 7 } })
        XCTAssertEqual(client.json(bob).first { $0["id"] as? Int == 7 }?["status"] as? Int, 400)

        client.onQueue { $0.close(bob, .goingAway, reason: "backgrounded") }
        XCTAssertTrue(client.wait { client.report(bob) != nil })
        XCTAssertEqual(client.report(bob), CloseReport(cause: .local, code: .goingAway, reason: ""))
        XCTAssertTrue(client.wait { target.eventSocketsOpen == 2 })
        XCTAssertEqual(target.eventSocketCloses.closed["remote.1001"], 1)
    }

    func testUnknownDeviceIsRefusedAtTheHandshakeAndCountedByKind() throws {
        let (target, server) = try serve()
        let client = ClientHarness()
        defer { client.shutDown(); server.stop(); target.close() }
        let nobody = try client.open("ws://127.0.0.1:\(server.port)/v1/events?device=nobody")
        let noQuery = try client.open("ws://127.0.0.1:\(server.port)/v1/events")
        XCTAssertTrue(client.wait { client.report(nobody) != nil && client.report(noQuery) != nil })
        XCTAssertEqual(client.report(nobody)?.cause, .handshakeFailed(.unexpectedStatus(404)))
        XCTAssertEqual(client.report(noQuery)?.cause, .handshakeFailed(.unexpectedStatus(400)))
        let tally = client.onQueue { $0.tally }
        XCTAssertEqual(tally.closed["handshake.status_404.1006"], 1)
        XCTAssertEqual(tally.opened, 2)
        XCTAssertEqual(tally.totalClosed, 2)
        // The HTTP API on the same server is unaffected.
        XCTAssertEqual(httpRequest(port: server.port, "GET", "/v1/health").0, 200)
    }

    func testWSSWithTheLocalCAAndRefusedWithoutIt() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("ws-tls-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let material = try LocalCertificateAuthority.ensure(stateDirectory: state).material
        let (target, server) = try serve(tls: TLSFiles(certificatePath: material.certificatePath,
                                                       keyPath: material.keyPath))
        let trusted = ClientHarness(tls: try ClientTLS(caFile: material.caCertificatePath))
        let untrusted = ClientHarness(tls: try ClientTLS(caFile: nil))
        defer { trusted.shutDown(); untrusted.shutDown(); server.stop(); target.close() }
        // Registered through the handler itself: the helper speaks cleartext HTTP only.
        let body = "{\"id\":\"carol\",\"handle\":{\"kind\":\"phoneNumber\",\"value\":\"+3\",\"displayName\":\"c\"},"
            + "\"apnsToken\":\"\(String(repeating: "a", count: 64))\"}"
        target.handle(HTTPRequest(method: "POST", path: "/v1/devices", body: Array(body.utf8))) { _ in }
        let socket = try trusted.open("wss://127.0.0.1:\(server.port)/v1/events?device=carol")
        trusted.waitOpen(socket)
        trusted.onQueue { $0.send(socket, text: "{\"id\":\"t\",\"op\":\"end\",\"conversation\":\"none\"}") }
        XCTAssertTrue(trusted.wait { trusted.json(socket).contains { $0["id"] as? String == "t" } })
        XCTAssertEqual(trusted.json(socket).first?["status"] as? Int, 404)
        let refused = try untrusted.open("wss://127.0.0.1:\(server.port)/v1/events?device=carol")
        XCTAssertTrue(untrusted.wait { untrusted.report(refused) != nil })
        XCTAssertEqual(untrusted.report(refused)?.cause, .tlsFailed)
    }
}
