import Foundation
import HTTPServer
import Locking
import ReferenceTarget
import WebSocket
import WebSocketClient
import XCTest

/// Interoperability with a WebSocket implementation we did not write: Python's `websockets` (PyPI, installed
/// by scripts/test-deps.sh), as a server our client talks to and as a client of the reference target.
final class PythonPeerTests: XCTestCase {
    /// A child Python process whose stdout is collected as it arrives; stopped by its PID in `stop`.
    private final class PythonPeer: @unchecked Sendable {
        let process = Process()
        private let output = Mutex("")
        private let pipe = Pipe()

        init(script: String, arguments: [String] = []) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-u", "-c", script] + arguments
            process.standardOutput = pipe
            process.standardError = pipe
            pipe.fileHandleForReading.readabilityHandler = { [unowned self] handle in
                let data = handle.availableData
                output.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            try process.run()
        }

        var text: String { output.withLock { $0 } }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            pipe.fileHandleForReading.readabilityHandler = nil
        }
    }

    override func setUpWithError() throws {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", "import websockets"]
        check.standardError = FileHandle.nullDevice
        try check.run()
        check.waitUntilExit()
        if check.terminationStatus != 0 {
            throw XCTSkip("Python package websockets is missing and scripts/test-deps.sh could not install it "
                          + "(is the package index reachable?): interop with a foreign peer not tested")
        }
    }

    private static let echoServer = """
        import asyncio, websockets
        async def echo(ws):
            async for m in ws:
                await ws.send(m)
        async def main():
            async with websockets.serve(echo, "127.0.0.1", 0, max_size=2**20) as server:
                print("port", list(server.sockets)[0].getsockname()[1], flush=True)
                await asyncio.Future()
        asyncio.run(main())
        """

    func testClientTalksToPythonWebsocketsServer() throws {
        let peer = try PythonPeer(script: Self.echoServer)
        let client = ClientHarness()
        defer { client.shutDown(); peer.stop() }
        XCTAssertTrue(client.wait { peer.text.contains("\n") }, peer.text)
        let port = try XCTUnwrap(peer.text.split(separator: "\n").first?.split(separator: " ").last.flatMap { Int($0) })
        let socket = try client.open("ws://127.0.0.1:\(port)/any/path?q=1", headers: [("Authorization", "Bearer x")])
        client.waitOpen(socket)
        let big = String(repeating: "ü", count: 100_000)
        client.onQueue { pool in
            pool.send(socket, text: "hello")
            pool.send(socket, binary: [0, 1, 2, 255])
            pool.send(socket, text: "split into fragments of three bytes", maxFrameBytes: 3)
            pool.send(socket, text: big)
            pool.ping(socket, [9, 9])
        }
        XCTAssertTrue(client.wait { client.texts(socket).count == 3 && client.events(socket).contains(.pong([9, 9])) })
        XCTAssertEqual(client.texts(socket), ["hello", "split into fragments of three bytes", big])
        XCTAssertTrue(client.events(socket).contains(.message(.binary([0, 1, 2, 255]))))
        client.onQueue { $0.close(socket, .normal, reason: "done") }
        XCTAssertTrue(client.wait { client.report(socket) != nil })
        XCTAssertEqual(client.report(socket), CloseReport(cause: .local, code: .normal, reason: "done"))
    }

    private static let actingClient = """
        import asyncio, json, sys, websockets
        async def main():
            async with websockets.connect(sys.argv[1]) as ws:
                print("ready", flush=True)
                event = json.loads(await ws.recv())
                print("event", event["event"], flush=True)
                await ws.send(json.dumps({"id": "p1", "op": "join", "conversation": event["uuid"]}))
                while True:
                    m = json.loads(await ws.recv())
                    if m.get("id") == "p1":
                        print("answer", m["status"], m["body"]["state"], flush=True)
                        break
                await ws.close(1000, "bye")
            print("closed", flush=True)
        asyncio.run(main())
        """

    func testPythonWebsocketsClientUsesTheReferenceTargetsChannel() throws {
        let target = ReferenceTarget(configuration: .init(gatewayURL: "http://127.0.0.1:9"))
        let server = HTTPServer(handler: target)
        try server.start()
        let client = ClientHarness()
        defer { client.shutDown(); server.stop(); target.close() }
        let port = server.port
        for (id, number) in [("alice", "+1"), ("bob", "+2")] {
            let body = "{\"id\":\"\(id)\",\"handle\":{\"kind\":\"phoneNumber\",\"value\":\"\(number)\","
                + "\"displayName\":\"\(id)\"},\"apnsToken\":\"\(String(repeating: "a", count: 64))\"}"
            XCTAssertEqual(httpRequest(port: port, "POST", "/v1/devices", body).0, 201)
        }
        let alice = try client.open("ws://127.0.0.1:\(port)/v1/events?device=alice")
        client.waitOpen(alice)
        let peer = try PythonPeer(script: Self.actingClient, arguments: ["ws://127.0.0.1:\(port)/v1/events?device=bob"])
        defer { peer.stop() }
        XCTAssertTrue(client.wait { peer.text.contains("ready") && target.eventSocketsOpen == 2 }, peer.text)
        let call = httpRequest(port: port, "POST", "/v1/conversations",
            "{\"caller\":\"alice\",\"handles\":[{\"kind\":\"phoneNumber\",\"value\":\"+2\",\"displayName\":\"b\"}]}")
        XCTAssertEqual(call.0, 201)
        XCTAssertTrue(client.wait { peer.text.contains("closed") }, peer.text)
        XCTAssertTrue(peer.text.contains("event updated"), peer.text)
        XCTAssertTrue(peer.text.contains("answer 200 joined"), peer.text)
        XCTAssertTrue(client.wait { client.json(alice).contains { $0["event"] as? String == "joined" } })
        XCTAssertTrue(client.wait { target.eventSocketCloses.closed["remote.1000"] == 1 })
    }
}
