import Determinism
import Foundation
import HTTPServer
import Locking
import TestSupport
import WebSocket
import XCTest

/// DialectCallServer's own rules: its call model, its socket protocol without sockets (a recording peer), and
/// the Upgrade and first exchange over a real socket on loopback.
final class DialectSwitchboardTests: XCTestCase {
    /// A socket that records what the switchboard sends it.
    final class RecordingPeer: DialectPeer {
        let id: UInt64
        private let log = Mutex<(sent: [String], closed: (CloseCode, String)?)>(([], nil))

        init(_ id: UInt64) { self.id = id }

        func send(text: String) { log.withLock { $0.sent.append(text) } }
        func close(_ code: CloseCode, reason: String) { log.withLock { $0.closed = (code, reason) } }

        var sent: [[String: Any]] {
            log.withLock { $0.sent }.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        var closedCode: UInt16? { log.withLock { $0.closed?.0.rawValue } }
    }

    private func board(users: [String] = ["u1", "u2"]) -> DialectSwitchboard {
        let board = DialectSwitchboard(now: { 1_700_000_000_000 })
        for user in users { board.register(user, secret: "key-\(user)") }
        return board
    }

    /// A peer past its auth, with what the auth brought cleared.
    private func signedIn(_ board: DialectSwitchboard, _ user: String, id: UInt64) -> RecordingPeer {
        let peer = RecordingPeer(id)
        board.opened(peer)
        board.received("{\"auth\":{\"user\":\"\(user)\",\"key\":\"key-\(user)\"}}", from: peer)
        return peer
    }

    func testACallLivesWhileTwoPartiesAreInItAndItsPhaseFollowsThem() {
        var calls = DialectCalls()
        let call = calls.dial(from: "a", to: ["b", "c"])
        XCTAssertEqual(call.phase, "ringing")
        XCTAssertEqual(try calls.act("answer", by: "b", on: call.callId).get().notes.first?.event, "call.answered")
        XCTAssertEqual(calls.calls[call.callId]?.phase, "live")
        XCTAssertEqual(try calls.act("hold", by: "a", on: call.callId).get().call.phase, "onhold")
        XCTAssertEqual(calls.act("hold", by: "c", on: call.callId), .failure(
            DialectCalls.Refusal(code: "conflict", text: "cannot hold while alerting")))
        XCTAssertEqual(try calls.act("reject", by: "c", on: call.callId).get().call.phase, "onhold")
        let over = try? calls.act("leave", by: "b", on: call.callId).get()
        XCTAssertEqual(over?.notes.first?.event, "call.over")
        XCTAssertEqual(over?.call.cause, "hangup")
        XCTAssertEqual(over?.notes.first?.to, ["a", "b"], "the parties present before the change, the actor too")
        XCTAssertEqual(over?.call.rev, 5)
        XCTAssertEqual(calls.act("leave", by: "a", on: call.callId), .failure(.over(call.callId)))
    }

    func testNothingIsSentBeforeTheAuthAndAnythingElseFirstClosesWith4001() {
        let board = board()
        let early = RecordingPeer(1)
        board.opened(early)
        _ = board.dial(from: "u1", to: ["u2"])
        XCTAssertTrue(early.sent.isEmpty, "a socket without auth hears no event")
        board.received("{\"ref\":1,\"do\":\"answer\",\"callId\":\"x\"}", from: early)
        XCTAssertEqual(early.closedCode, 4001)
        XCTAssertTrue(early.sent.isEmpty)
    }

    func testAWrongKeyOrUnknownUserClosesWith4003() {
        let board = board()
        let auths = ["{\"user\":\"u1\",\"key\":\"nope\"}", "{\"user\":\"u9\",\"key\":\"key-u9\"}", "{\"user\":\"u1\"}"]
        for (id, auth) in zip(UInt64(1)..., auths) {
            let peer = RecordingPeer(id)
            board.opened(peer)
            board.received("{\"auth\":\(auth)}", from: peer)
            XCTAssertEqual(peer.closedCode, 4003, auth)
            XCTAssertTrue(peer.sent.isEmpty, auth)
        }
    }

    func testTheAuthIsAnsweredWithReadyThenTheStateOfEachCallNotOver() throws {
        let board = board(users: ["u1", "u2", "u3"])
        let ongoing = board.dial(from: "u1", to: ["u2"])
        let ended = board.dial(from: "u3", to: ["u2"])
        _ = board.act("reject", by: "u2", on: ended.callId)
        let peer = signedIn(board, "u2", id: 7)
        let sent = peer.sent
        XCTAssertEqual(sent.count, 2, "\(sent)")
        XCTAssertEqual(sent.first?["type"] as? String, "session.ready")
        XCTAssertEqual(sent.last?["type"] as? String, "call.state")
        let call = try XCTUnwrap(sent.last?["call"] as? [String: Any])
        XCTAssertEqual(call["callId"] as? String, ongoing.callId)
        XCTAssertEqual(call["phase"] as? String, "ringing")
        XCTAssertEqual(sent.last?["ts"] as? Int, 1_700_000_000_000)
        XCTAssertNil(peer.closedCode)
    }

    func testAnActionIsAnsweredWithItsRefEchoedAsSentAndEveryPartyHearsTheEvent() throws {
        let board = board()
        let caller = signedIn(board, "u1", id: 1)
        let callee = signedIn(board, "u2", id: 2)
        let call = board.dial(from: "u1", to: ["u2"])
        XCTAssertEqual(caller.sent.last?["type"] as? String, "call.ring")
        board.received("{\"ref\":\"r-17\",\"do\":\"answer\",\"callId\":\"\(call.callId)\"}", from: callee)
        board.received("{\"ref\":18,\"do\":\"hold\",\"callId\":\"\(call.callId)\"}", from: callee)
        let replies = callee.sent.filter { $0["ref"] != nil }
        XCTAssertEqual(replies.map { "\($0["ref"]!)" }, ["r-17", "18"])
        XCTAssertEqual(replies.map { $0["ok"] as? Bool }, [true, true])
        let held = try XCTUnwrap(replies.last?["call"] as? [String: Any])
        XCTAssertEqual(held["phase"] as? String, "onhold")
        XCTAssertEqual((held["parties"] as? [[String: Any]])?.map { $0["status"] as? String }, ["talking", "held"])
        XCTAssertEqual(caller.sent.compactMap { $0["type"] as? String },
                       ["session.ready", "call.ring", "call.answered", "call.state"])
    }

    func testARefusalSaysOkFalseWithTheErrorsCode() {
        let board = board()
        let callee = signedIn(board, "u2", id: 2)
        let call = board.dial(from: "u1", to: ["u2"])
        board.received("{\"ref\":1,\"do\":\"hold\",\"callId\":\"\(call.callId)\"}", from: callee)
        board.received("{\"ref\":2,\"do\":\"reject\",\"callId\":\"\(call.callId)\"}", from: callee)
        board.received("{\"ref\":3,\"do\":\"leave\",\"callId\":\"\(call.callId)\"}", from: callee)
        board.received("{\"ref\":4,\"do\":\"dance\",\"callId\":\"\(call.callId)\"}", from: callee)
        board.received("{\"ref\":5,\"do\":\"leave\",\"callId\":\"nope\"}", from: callee)
        let replies = callee.sent.filter { $0["ref"] != nil }
        XCTAssertEqual(replies.map { $0["ok"] as? Bool }, [false, true, false, false, false])
        XCTAssertEqual(replies.map { ($0["error"] as? [String: Any])?["code"] as? String },
                       ["conflict", nil, "over", "bad", "unknown"])
    }

    func testAMergeEndsTheOtherCallAndItsPartiesHearCallMergedIntoTheCallTheyAreInNow() throws {
        let board = board(users: ["a", "b", "c"])
        let (a, b, c) = (signedIn(board, "a", id: 1), signedIn(board, "b", id: 2), signedIn(board, "c", id: 3))
        let first = board.dial(from: "a", to: ["b"])
        let second = board.dial(from: "a", to: ["c"])
        board.received("{\"ref\":1,\"do\":\"answer\",\"callId\":\"\(first.callId)\"}", from: b)
        board.received("{\"ref\":2,\"do\":\"answer\",\"callId\":\"\(second.callId)\"}", from: c)
        board.received("{\"ref\":3,\"do\":\"merge\",\"callId\":\"\(first.callId)\",\"other\":\"\(second.callId)\"}",
                       from: a)
        let reply = try XCTUnwrap(a.sent.last { $0["ref"] as? Int == 3 })
        XCTAssertEqual(reply["ok"] as? Bool, true, "\(reply)")
        let merged = try XCTUnwrap(c.sent.last)
        XCTAssertEqual(merged["type"] as? String, "call.merged")
        XCTAssertEqual(merged["callId"] as? String, second.callId)
        XCTAssertEqual(merged["into"] as? String, first.callId)
        XCTAssertEqual((merged["call"] as? [String: Any])?["callId"] as? String, first.callId)
        XCTAssertEqual(b.sent.last?["type"] as? String, "call.state")
        XCTAssertNil(b.sent.last?["into"], "an event about the call it carries has no into")
        XCTAssertEqual(board.call(second.callId)?.cause, "merged")
        XCTAssertEqual(board.call(first.callId)?.parties.map(\.who), ["a", "b", "c"])

        board.received("{\"ref\":4,\"do\":\"split\",\"callId\":\"\(first.callId)\",\"party\":\"c\"}", from: a)
        let split = try XCTUnwrap(a.sent.last { $0["ref"] as? Int == 4 })
        let fresh = try XCTUnwrap((split["newCall"] as? [String: Any])?["callId"] as? String)
        XCTAssertEqual(c.sent.last?["type"] as? String, "call.split")
        XCTAssertEqual(c.sent.last?["callId"] as? String, first.callId)
        XCTAssertEqual(c.sent.last?["into"] as? String, fresh)
        XCTAssertEqual(board.call(fresh)?.parties.map(\.status), [.held, .talking])
        XCTAssertEqual(board.call(first.callId)?.phase, "live", "a and b are still together")
    }

    func testOverRealSocketsTheUpgradeNeedsItsHeaderAndAnAuthenticatedSocketHearsTheRing() throws {
        let server = DialectCallServer(gatewayURL: "http://127.0.0.1:1")
        try serving(server) { port in try exchange(server, port: port) }
    }

    private func exchange(_ server: DialectCallServer, port: Int) throws {
        server.board.register("u1", secret: "key-u1")
        server.board.register("u2", secret: "key-u2")
        let refused = try RealClient(port: port, headers: [])
        XCTAssertTrue(refused.head.hasPrefix("HTTP/1.1 400"), refused.head)

        var client = try RealClient(port: port, headers: [("x-app-version", "7")])
        XCTAssertTrue(client.head.hasPrefix("HTTP/1.1 101"), client.head)
        try client.send("{\"auth\":{\"user\":\"u2\",\"key\":\"key-u2\"}}")
        XCTAssertEqual(client.next()?["type"] as? String, "session.ready")
        let call = server.board.dial(from: "u1", to: ["u2"])
        let ring = client.next()
        XCTAssertEqual(ring?["type"] as? String, "call.ring")
        XCTAssertEqual((ring?["call"] as? [String: Any])?["callId"] as? String, call.callId)
        try client.send("{\"ref\":\"a\",\"do\":\"answer\",\"callId\":\"\(call.callId)\"}")
        let first = client.next()
        let second = client.next()
        let reply = [first, second].compactMap { $0 }.first { $0["ref"] != nil }
        XCTAssertEqual(reply?["ok"] as? Bool, true, "\(String(describing: first)) \(String(describing: second))")
        XCTAssertEqual(server.socketsOpened.load(ordering: .relaxed), 1)
    }
}

/// A blocking WebSocket client for one test: `ClientConnection` over a loopback socket.
struct RealClient {
    private let socket: LoopbackSocket
    private var connection: ClientConnection
    private var pending: [Message] = []
    /// The server's answer head to the Upgrade (its status line first).
    private(set) var head = ""

    init(port: Int, headers: [(name: String, value: String)]) throws {
        socket = try LoopbackSocket(port: port)
        let url = WebSocketURL(secure: false, host: "127.0.0.1", port: port, resource: "/api/v2/live")
        connection = try ClientConnection(url: url, headers: headers, random: SeededRandom(seed: 3))
        try flush()
        let bytes = socket.read(timeoutMillis: 5_000) { $0.firstRange(of: Array("\r\n\r\n".utf8)) != nil }
        head = String(decoding: bytes, as: UTF8.self)
        for event in connection.receive(bytes) { if case .message(let m) = event { pending.append(m) } }
    }

    mutating func send(_ text: String) throws {
        try connection.send(text: text)
        try flush()
    }

    /// The next text message as a JSON object; nil when none comes before the socket's receive timeout.
    mutating func next() -> [String: Any]? {
        while pending.isEmpty {
            guard case .data(let bytes) = socket.receive() else { return nil }
            for event in connection.receive(bytes) { if case .message(let m) = event { pending.append(m) } }
        }
        guard case .text(let text) = pending.removeFirst() else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    private mutating func flush() throws {
        let bytes = connection.withPendingBytes { Array($0) }
        try socket.send(bytes)
        connection.didWrite(bytes.count)
    }
}
