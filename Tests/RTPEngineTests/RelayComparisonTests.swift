import Media
@testable import RTPEngine
import XCTest

/// The relay's counts beside callstorm's (`RelayComparison`): hand-made `query` answers shaped as rtpengine 10.5
/// writes them (measured), and tallies of both ends of each call.
final class RelayComparisonTests: XCTestCase {
    /// A party of a `query` answer: one RTP and one RTCP stream, `received` RTP packets from it, its endpoint.
    private func party(_ tag: String, peer: String, from address: String, port: Int, advertised: String? = nil,
                       received: Int) -> Bencode {
        let endpoint: Bencode = ["family": "IPv4", "address": .string(address), "port": .integer(port)]
        let said: Bencode = ["family": "IPv4", "address": .string(advertised ?? address), "port": .integer(port)]
        let rtp: Bencode = ["local port": 31000, "local address": "127.0.0.1", "endpoint": endpoint,
                            "advertised endpoint": said, "flags": ["RTP", "filled"],
                            "stats": ["packets": .integer(received), "bytes": .integer(172 * received), "errors": 0]]
        let rtcp: Bencode = ["local port": 31001, "flags": ["RTCP"], "stats": ["packets": 3, "bytes": 0, "errors": 0]]
        return ["tag": .string(tag), "subscribers": [["tag": .string(peer), "type": "offer/answer"]],
                "medias": [["index": 1, "type": "audio", "protocol": "RTP/AVP", "streams": [rtp, rtcp]]]]
    }

    private func call(_ id: String, caller: (port: Int, received: Int), callee: (port: Int, received: Int),
                      calleeAddress: String = "127.0.0.1") throws -> RTPEngineCall {
        try RTPEngineCall(callID: id, answer: ["tags": .dictionary([
            "ft": party("ft", peer: "tt", from: "127.0.0.1", port: caller.port, received: caller.received),
            "tt": party("tt", peer: "ft", from: calleeAddress, port: callee.port, received: callee.received),
        ])])
    }

    private func leg(_ id: String, call: Int, caller: Bool, port: Int, sent: Int, received: Int,
                     window: Int = 6, stall: Int = 0) -> MediaLegTally {
        MediaLegTally(callID: id, call: call, caller: caller, localPort: port, sent: sent, received: received,
                      lastWindowPackets: window, stallPackets: stall)
    }

    func testPacketsTheReceiverCouldNotReadWhileItsLoopWasLateAreAllowedForOnItsDirectionOnly() throws {
        // The callee's loop once sent 160 ms late: 8 of the caller's packets may have sat unread when it closed.
        let legs = [leg("g", call: 9, caller: true, port: 20030, sent: 89, received: 85, window: 6),
                    leg("g", call: 9, caller: false, port: 20032, sent: 89, received: 76, window: 14, stall: 8)]
        let relay = ["g": try call("g", caller: (20030, 89), callee: (20032, 89))]
        let comparison = RelayComparison(legs: legs, relay: relay)
        XCTAssertEqual(comparison.rows.map(\.tolerance), [14, 14])
        XCTAssertEqual(comparison.rows.map(\.agrees), [true, true], "13 short of 89 within 6 + 8; 4 within 14 + 0")
        var late = legs
        late[1].received = 74
        XCTAssertEqual(RelayComparison(legs: late, relay: relay).mismatchedCalls, [9], "15 short is beyond 14")
    }

    func testCountsWithinTheLastWindowAgreeAndOneBeyondItIsTheCallNamed() throws {
        let legs = [
            leg("a", call: 1, caller: true, port: 20000, sent: 75, received: 70),
            leg("a", call: 1, caller: false, port: 20002, sent: 76, received: 75),
            // Call 2: the callee counted 8 fewer than the relay received from the caller (window 6).
            leg("b", call: 2, caller: true, port: 20004, sent: 75, received: 75),
            leg("b", call: 2, caller: false, port: 20006, sent: 75, received: 67),
        ]
        let relay = ["a": try call("a", caller: (20000, 75), callee: (20002, 76)),
                     "b": try call("b", caller: (20004, 75), callee: (20006, 75))]
        let comparison = RelayComparison(legs: legs, relay: relay)
        XCTAssertEqual(comparison.callsCompared, 2)
        XCTAssertEqual(comparison.mismatchedCalls, [2])
        XCTAssertEqual(comparison.rows.map(\.agrees), [true, true, false, true])
        XCTAssertEqual(comparison.rows[2].relayForwardsTo, RTPEngineEndpoint(address: "127.0.0.1", port: 20006))
        let csv = comparison.csv.split(separator: "\n")
        XCTAssertEqual(csv.first, "call,call_id,direction,callstorm_sent,relay_received,relay_forwards_to,"
            + "callstorm_received,tolerance,agree")
        XCTAssertEqual(csv[3], "2,b,caller_to_callee,75,75,127.0.0.1:20006,67,6,no")
        XCTAssertEqual(comparison.notes(), ["media relay: call 2 (b) caller to callee: callstorm sent 75, the relay "
            + "received 75 and sends them to 127.0.0.1:20006, the far end counted 67 (tolerance 6)"])
    }

    func testAnAnswerWhoseAddressTheServerReplacedIsFoundByItsPortAndDisagrees() throws {
        // WITH_RTPENGINE_LOST_ANSWER: the callee's party holds 192.0.2.1 with the callee's own port.
        let legs = [leg("c", call: 7, caller: true, port: 20010, sent: 75, received: 75),
                    leg("c", call: 7, caller: false, port: 20012, sent: 75, received: 0)]
        let relay = ["c": try call("c", caller: (20010, 75), callee: (20012, 75), calleeAddress: "192.0.2.1")]
        let comparison = RelayComparison(legs: legs, relay: relay)
        XCTAssertEqual(comparison.mismatchedCalls, [7])
        XCTAssertEqual(comparison.rows.map(\.agrees), [false, true])
        XCTAssertEqual(comparison.rows[0].relayReceived, 75)
        XCTAssertEqual(comparison.rows[0].relayForwardsTo?.address, "192.0.2.1")
        XCTAssertEqual(comparison.rows[0].received, 0)
    }

    func testACallTheRelayNeverSawDisagreesAndACallThatSentNothingIsLeftOut() throws {
        let legs = [leg("d", call: 3, caller: true, port: 20020, sent: 40, received: 0),
                    leg("e", call: 4, caller: true, port: 20022, sent: 0, received: 0),
                    leg("f", call: 5, caller: true, port: 20024, sent: 4, received: 0, window: 4)]
        let comparison = RelayComparison(legs: legs, relay: [:])
        XCTAssertEqual(comparison.callsCompared, 2)
        XCTAssertEqual(comparison.mismatchedCalls, [3], "4 packets, all in the last window, may all be in flight")
        XCTAssertNil(comparison.rows[0].relayReceived)
        XCTAssertEqual(comparison.notes().first?.contains("the relay holds no such party"), true)
    }

    func testTheToleranceIsTheSlotsPlannedInTheLastWindowAndTheLargestLag() {
        var session = MediaSession(settings: MediaStreamSettings(seed: 1))
        session.start(at: 0, direction: .sendrecv)
        var report = session.report
        // No lag: ⌊100 ms / 20 ms⌋ + 1 = 6, but never more than were sent.
        report.sent.packets = 75
        XCTAssertEqual(MediaLegTally(callID: "x", call: 1, caller: true, localPort: 2, report: report)
            .lastWindowPackets, 6)
        report.sent.packets = 3
        XCTAssertEqual(MediaLegTally(callID: "x", call: 1, caller: true, localPort: 2, report: report)
            .lastWindowPackets, 3)
        // A send 45 ms late: ⌊145 / 20⌋ + 1 = 8.
        report.sent.packets = 75
        report.sendLag.record(45_000_000)
        let late = MediaLegTally(callID: "x", call: 1, caller: true, localPort: 2, report: report)
        XCTAssertEqual(late.lastWindowPackets, 8)
        XCTAssertEqual(late.stallPackets, 2, "⌊45 / 20⌋")
    }
}
