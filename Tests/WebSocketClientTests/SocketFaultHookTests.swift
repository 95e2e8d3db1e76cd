import Foundation
import HTTPServer
import ReferenceTarget
import WebSocket
import WebSocketClient
import XCTest

/// The hook `socket_storm` acts through, over real loopback sockets: the reference target ending every event
/// socket at once (a client that stops reading, a stall, is `BadServerFrameTests`'s paused socket).
final class SocketFaultHookTests: XCTestCase {
    private func serve() throws -> (ReferenceTarget, HTTPServer) {
        let target = ReferenceTarget(configuration: .init(gatewayURL: "http://127.0.0.1:9"))
        let server = HTTPServer(configuration: HTTPServerConfiguration(), handler: target)
        try server.start()
        return (target, server)
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
