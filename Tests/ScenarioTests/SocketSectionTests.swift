import XCTest
@testable import Scenario

/// `device.socket*` and `target.api.socket` (issue 21): read, and every mistake reported with its position.
final class SocketSectionTests: XCTestCase {
    private func load(_ rest: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse("name: ws\ndevices: 10\nload: [{ hold: { rate: 5/s, for: 10s } }]\n" + rest,
                             file: "ws.yaml")
    }

    private let api = """
        target:
          url: "http://127.0.0.1:9000"
          api:
            register: { method: POST, path: /devices }
            start: { method: POST, path: /calls, capture: { conversation.id: "$.id" } }
            end: { method: POST, path: "/calls/${conversation.id}/end" }
            join: { method: POST, path: "/calls/${conversation.id}/join", expect: [200, 202] }

        """

    func testDeviceSocketDefaultsToNoneAndEveryKeyIsRead() throws {
        XCTAssertEqual(try load("").get().device.socket, .none)
        let device = try load("""
            device: { socket: on_push, socket_linger: 2s, socket_reconnect: { base: 100ms, max: 3s, jitter: 0.25 } }

            """).get().device
        XCTAssertEqual(device.socket, .onPush)
        XCTAssertEqual(device.socketLingerNanos, 2_000_000_000)
        XCTAssertEqual(device.socketReconnect, SocketReconnect(baseNanos: 100_000_000, maxNanos: 3_000_000_000,
                                                               jitter: 0.25))
        let text = try load("device: { socket: on_push, socket_linger: 2s }\n").get().describe()
        XCTAssertTrue(text.contains("device socket: on_push; linger 2000 ms; reconnect 200 ms ×2 up to 5000 ms"), text)
        XCTAssertFalse(try load("").get().describe().contains("device socket"))
    }

    func testTheSocketMappingIsReadLikeAPushWithIgnoreActionsAndReply() throws {
        let scenario = try load(api + """
                socket:
                  url: "/ws?device=${device.id}"
                  headers: ["authorization: Bearer ${device.token}"]
                  hello: '{"type":"hello","device":"${device.id}"}'
                  events:
                    event: "$.type"
                    conversation: "$.call"
                    view: "$.state"
                    sent_at: "$.ts"
                    joined: [answered]
                    ended: [hungup, gone]
                    ignore: [pong, welcome]
                  actions:
                    join: '{"rid":"${request.id}","do":"answer","call":"${conversation.id}"}'
                  reply: { id: "$.rid", status: "$.code", body: "$.data" }
            device: { socket: always }

            """).get()
        let socket = try XCTUnwrap(scenario.api?.socket)
        XCTAssertEqual(socket.url, "/ws?device=${device.id}")
        XCTAssertEqual(socket.headers, ["authorization: Bearer ${device.token}"])
        XCTAssertEqual(socket.hello, "{\"type\":\"hello\",\"device\":\"${device.id}\"}")
        XCTAssertEqual(socket.events.event, "$.type")
        XCTAssertEqual(socket.events.conversation, "$.call")
        XCTAssertEqual(socket.events.view, "$.state")
        XCTAssertEqual(socket.events.sentAt, "$.ts")
        XCTAssertEqual(socket.events.joined, ["answered"])
        XCTAssertEqual(socket.events.ended, ["hungup", "gone"])
        XCTAssertEqual(socket.ignore, ["pong", "welcome"])
        XCTAssertEqual(socket.actions.keys.sorted(), ["join"])
        XCTAssertEqual(socket.reply, APIMapping.Socket.Reply(id: "$.rid", status: "$.code", body: "$.data"))
    }

    func testMistakesAreReportedWithPositions() {
        guard case .failure(let errors) = load(api + """
                socket:
                  url: "http://x/ws"
                  hello: "${device.idd}"
                  events: { event: "type", ignor: [pong] }
                  actions: { join: "{}", get: "{}" }
            device: { socket: sometimes, socket_reconnect: { base: 2s, max: 1s, jitter: 2 } }

            """) else { return XCTFail("expected errors") }
        let text = errors.description
        XCTAssertTrue(text.contains("ws.yaml:12:12: error: the socket's 'url' is a path"), text)
        XCTAssertTrue(text.contains("ws.yaml:13:14: error: unknown variable '${device.idd}'"), text)
        XCTAssertTrue(text.contains("ws.yaml:14:24: error: 'event' must be a JSON path"), text)
        XCTAssertTrue(text.contains("ws.yaml:14:32: error: unknown key 'ignor'"), text)
        XCTAssertTrue(text.contains("did you mean 'ignore'?"), text)
        XCTAssertTrue(text.contains("ws.yaml:15:30: error: unknown key 'get'"), text)
        XCTAssertTrue(text.contains("maps 'actions' but not 'reply'"), text)
        XCTAssertTrue(text.contains("ws.yaml:16:19: error: 'socket' must be one of none, always, on_push, "
            + "foreground, got 'sometimes'"), text)
        XCTAssertTrue(text.contains("'max' must be at least 'base'"), text)
        XCTAssertTrue(text.contains("'jitter' is a share of each delay"), text)
    }

    func testASocketDeviceNeedsTheServersSocketMappedButTheReferenceProtocolHasOne() throws {
        guard case .failure(let errors) = load(api + "device: { socket: on_push }\n") else {
            return XCTFail("a mapped server without a socket cannot serve socket devices")
        }
        XCTAssertTrue(errors.description.contains(
            "ws.yaml:11:19: error: 'device.socket: on_push' needs 'target.api.socket'"), errors.description)
        XCTAssertEqual(try load("device: { socket: on_push }\n").get().device.socket, .onPush)
        XCTAssertNoThrow(try load(api + "device: { socket: none }\n").get())
    }

    func testBackoffGrowsToItsCapAndJitterOnlyShortensIt() {
        let backoff = SocketReconnect(baseNanos: 100, maxNanos: 1000, jitter: 0.5)
        XCTAssertEqual((0..<6).map { backoff.delay(attempt: $0, unit: 0) }, [100, 200, 400, 800, 1000, 1000])
        XCTAssertEqual(backoff.delay(attempt: 1, unit: 0.999), 101)
        XCTAssertEqual(backoff.delay(attempt: 500, unit: 0), 1000)
    }
}
