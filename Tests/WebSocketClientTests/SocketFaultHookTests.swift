import Foundation
import HTTPServer
import ReferenceTarget
import WebSocket
import WebSocketClient
import XCTest

/// The hooks socket faults act through, over real loopback sockets: a client that stops reading (a stall) and
/// the reference target ending every event socket at once (a storm).
final class SocketFaultHookTests: XCTestCase {
    private func serve() throws -> (ReferenceTarget, HTTPServer) {
        let target = ReferenceTarget(configuration: .init(gatewayURL: "http://127.0.0.1:9"))
        let server = HTTPServer(configuration: HTTPServerConfiguration(), handler: target)
        try server.start()
        return (target, server)
    }

    func testAStalledSocketReadsNothingUntilItResumesThenGetsWhatQueued() throws {
        let (target, server) = try serve()
        let client = ClientHarness()
        defer { client.shutDown(); server.stop(); target.close() }
        registerDevice(server.port, "alice", "+1")
        registerDevice(server.port, "bob", "+2")
        let bob = try client.open("ws://127.0.0.1:\(server.port)/v1/events?device=bob")
        client.waitOpen(bob)
        XCTAssertTrue(client.onQueue { $0.pauseReading(bob) })
        let handle = "{\"kind\":\"phoneNumber\",\"value\":\"+2\",\"displayName\":\"x\"}"
        XCTAssertEqual(httpRequest(port: server.port, "POST", "/v1/conversations",
                                   "{\"caller\":\"alice\",\"handles\":[\(handle)]}").0, 201)
        XCTAssertTrue(client.wait { target.socketEventsSent >= 1 }, "the server sent Bob the call")
        // The frame is in the kernel now; a paused socket must leave it there (a bounded look, not a timing).
        client.wait(seconds: 0.3) { false }
        XCTAssertEqual(client.texts(bob), [], "nothing read while stalled")
        client.onQueue { $0.resumeReading(bob) }
        XCTAssertTrue(client.wait { client.json(bob).contains { $0["event"] as? String == "updated" } })
        XCTAssertNil(client.report(bob), "a stall ends no socket")
    }

    func testPausingASocketThatIsNotOpenDoesNothing() {
        let client = ClientHarness()
        defer { client.shutDown() }
        XCTAssertFalse(client.onQueue { $0.pauseReading(99) })
    }

    func testAStormEndsEverySocketWithTheCodeOrAbruptly() throws {
        let (target, server) = try serve()
        let client = ClientHarness()
        defer { client.shutDown(); server.stop(); target.close() }
        registerDevice(server.port, "alice", "+1")
        registerDevice(server.port, "bob", "+2")
        let url = "ws://127.0.0.1:\(server.port)/v1/events?device="
        let first = [try client.open(url + "alice"), try client.open(url + "bob", seed: 2)]
        first.forEach { client.waitOpen($0) }
        XCTAssertTrue(client.wait { target.eventSocketsOpen == 2 })
        XCTAssertEqual(target.stormEventSockets(closeCode: 1001), 2)
        XCTAssertTrue(client.wait { first.allSatisfy { client.report($0) != nil } })
        XCTAssertEqual(first.map { client.report($0)?.cause }, [.remote, .remote])
        XCTAssertEqual(first.map { client.report($0)?.code }, [.goingAway, .goingAway])

        let second = [try client.open(url + "alice", seed: 3), try client.open(url + "bob", seed: 4)]
        second.forEach { client.waitOpen($0) }
        XCTAssertTrue(client.wait { target.eventSocketsOpen == 2 })
        XCTAssertEqual(target.stormEventSockets(closeCode: nil), 2)
        XCTAssertTrue(client.wait { second.allSatisfy { client.report($0) != nil } })
        XCTAssertEqual(second.map { client.report($0)?.cause }, [.transport, .transport], "lost: no close frame")
    }
}
