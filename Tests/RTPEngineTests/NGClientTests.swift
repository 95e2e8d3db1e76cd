import Foundation
import RTPEngine
import XCTest

/// The ng client against a fake rtpengine on loopback: a lost answer is recovered by sending the same cookie
/// again, an answer to another cookie is not taken, silence ends in a timeout that says what to check, and
/// `result: error` is refused with rtpengine's reason.
final class NGClientTests: XCTestCase {
    /// Answers requests on its own thread as `reply` says (nil: stay silent), recording every datagram.
    private final class FakeEngine: @unchecked Sendable {
        let peer: UDPPeer
        private let lock = NSLock()
        private var seen: [NGMessage] = []
        private let done = DispatchSemaphore(value: 0)

        init(requests: Int, reply: @escaping @Sendable (Int, NGMessage) -> [[UInt8]]) throws {
            peer = try UDPPeer(receiveTimeoutMillis: 3000)
            Thread { [self] in
                for index in 0..<requests {
                    guard let (bytes, from) = peer.receive(), let message = try? NGMessage.decode(bytes) else { break }
                    lock.withLock { seen.append(message) }
                    for answer in reply(index, message) { peer.send(answer, to: from) }
                }
                done.signal()
            }.start()
        }

        var requests: [NGMessage] {
            done.wait()
            return lock.withLock { seen }
        }
    }

    func testALostAnswerIsRecoveredBySendingTheSameCookieAgainAndStrayAnswersAreIgnored() throws {
        let engine = try FakeEngine(requests: 2) { index, request in
            guard index == 1 else { return [] }
            let stray = NGMessage(cookie: "other", body: ["result": "pong"]).encoded
            return [stray, NGMessage(cookie: request.cookie, body: ["result": "pong"]).encoded]
        }
        let client = try NGClient(port: engine.peer.port, timeout: 0.3, attempts: 3)
        try client.ping()
        let requests = engine.requests
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests.map(\.cookie), [requests[0].cookie, requests[0].cookie])
        XCTAssertEqual(requests[0].body, ["command": "ping"])
    }

    func testSilenceEndsInATimeoutAfterEveryTry() throws {
        let engine = try FakeEngine(requests: 2) { _, _ in [] }
        let client = try NGClient(port: engine.peer.port, timeout: 0.1, attempts: 2)
        XCTAssertThrowsError(try client.ping()) { error in
            XCTAssertEqual(error as? NGError, .timeout(command: "ping", attempts: 2, seconds: 0.2))
            XCTAssertTrue("\(error)".contains("--listen-ng"))
        }
        XCTAssertEqual(engine.requests.count, 2)
    }

    func testAnErrorResultIsRefusedWithRtpenginesReason() throws {
        let engine = try FakeEngine(requests: 1) { _, request in
            [NGMessage(cookie: request.cookie, body: ["result": "error", "error-reason": "Unknown call-id"]).encoded]
        }
        let client = try NGClient(port: engine.peer.port, timeout: 1, attempts: 1)
        XCTAssertThrowsError(try client.query(callID: "gone")) { error in
            XCTAssertEqual(error as? NGError, .refused(command: "query", result: "error", reason: "Unknown call-id"))
        }
        XCTAssertEqual(engine.requests.first?.body, ["command": "query", "call-id": "gone"])
    }

    func testAQueryAnswerIsReadPerTagMediaAndStream() throws {
        let stream: (Int, Int, Bool, Int) -> Bencode = { local, remote, rtcp, packets in
            ["local port": .integer(local), "local address": "127.0.0.1", "flags": [rtcp ? "RTCP" : "RTP", "filled"],
             "endpoint": ["family": "IPv4", "address": "127.0.0.1", "port": .integer(remote)],
             "advertised endpoint": ["family": "IPv4", "address": "127.0.0.1", "port": .integer(remote)],
             "last packet": packets > 0 ? 1_796_522_961 : 0,
             "stats": ["packets": .integer(packets), "bytes": .integer(packets * 172), "errors": 0]]
        }
        let media: (Bencode, Bencode) -> Bencode = { rtp, rtcp in
            ["index": 1, "type": "audio", "protocol": "RTP/AVP", "codec": "PCMU/8000",
             "flags": ["initialized", "send", "recv"], "streams": [rtp, rtcp]]
        }
        let answer: [String: Bencode] = [
            "result": "ok", "created": 1_796_522_961,
            "tags": [
                "ft": ["tag": "ft", "medias": [media(stream(40010, 36837, false, 5), stream(40011, 36838, true, 1))],
                       "subscribers": [["tag": "tt", "type": "offer/answer"]]],
                "tt": ["tag": "tt", "medias": [media(stream(40000, 52539, false, 3), stream(40001, 52540, true, 0))],
                       "in dialogue with": "ft"],
            ],
            "totals": ["RTP": ["packets": 8, "bytes": 1376, "errors": 0], "RTCP": ["packets": 1, "bytes": 172]],
        ]
        let call = try RTPEngineCall(callID: "c1", answer: answer)
        XCTAssertEqual(call.tags.map(\.tag), ["ft", "tt"])
        XCTAssertEqual(call.packets(from: "ft"), RTPEngineCounts(packets: 5, bytes: 860, errors: 0))
        XCTAssertEqual(call.tag("ft")?.sentRTCP.packets, 1)
        XCTAssertEqual(call.packets(from: "tt")?.packets, 3)
        XCTAssertEqual(call.tag("ft")?.peers, ["tt"])
        XCTAssertEqual(call.tag("tt")?.peers, ["ft"])
        XCTAssertEqual(call.tag("tt")?.learnedRTP, [RTPEngineEndpoint(address: "127.0.0.1", port: 52539)])
        XCTAssertEqual(call.tag("tt")?.relayRTPPorts, [40000])
        XCTAssertEqual(call.tag("ft")?.medias.first?.codec, "PCMU/8000")
        XCTAssertEqual(call.totalRTP.packets, 8)
        XCTAssertEqual(call.totalRTCP, RTPEngineCounts(packets: 1, bytes: 172, errors: 0))
        XCTAssertNil(call.packets(from: "nobody"))
        XCTAssertThrowsError(try RTPEngineCall(callID: "c1", answer: ["result": "ok"]))
    }
}
