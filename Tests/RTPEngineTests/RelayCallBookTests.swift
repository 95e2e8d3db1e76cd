import CLinux
import Foundation
import RTPEngine
import XCTest

/// `RelayCallBook` against a real rtpengine whose deleted calls stay queryable for 1 s (`--delete-delay=1`): a
/// call an end closed is read back while the relay still holds it, so its counts survive the relay forgetting it;
/// a call nobody noted is gone by the end.
final class RelayCallBookTests: XCTestCase {
    func testACallReadAfterAnEndClosedKeepsItsCountsOnceTheRelayHasForgottenIt() throws {
        try XCTSkipUnless(RTPEngineServer.isInstalled, "Debian's rtpengine-daemon is not installed")
        let engine = try RTPEngineServer(options: RTPEngineOptions(portCount: 20, deleteDelay: 1))
        defer { engine.stop() }
        let ng = try engine.client()
        let caller = try UDPPeer(), callee = try UDPPeer()
        for id in ["noted", "unnoted"] {
            _ = try ng.offer(callID: id, fromTag: "caller", sdp: RTPEngineServerTests.sdp(port: caller.port))
        }
        let answered = try ng.answer(callID: "noted", fromTag: "caller", toTag: "callee",
                                     sdp: RTPEngineServerTests.sdp(port: callee.port))
        let toCallee = try XCTUnwrap(RTPEngineServerTests.mediaPort(answered))
        for sequence in 0..<7 {
            caller.send(UDPPeer.rtp(sequence: UInt16(sequence), ssrc: 0xCA11), to: toCallee)
            XCTAssertNotNil(callee.receive(), "packet \(sequence) relayed")
        }

        let book = try RelayCallBook(server: engine, settleSeconds: 0.05, interval: 0.05)
        book.start()
        book.closed("noted")
        for id in ["noted", "unnoted"] { try ng.delete(callID: id, fromTag: "caller") }
        // Until the relay forgets both (its delete delay: a second, on its timer's next tick).
        let deadline = clinux_monotonic_ns() + 10_000_000_000
        while clinux_monotonic_ns() < deadline,
              (try? ng.query(callID: "noted")) != nil || (try? ng.query(callID: "unnoted")) != nil {}
        XCTAssertThrowsError(try ng.query(callID: "noted"), "the relay still holds the call after 10 s")

        let (calls, unanswered) = book.finish(extra: ["unnoted"])
        XCTAssertEqual(unanswered, 0)
        XCTAssertEqual(calls["noted"]?.packets(from: "caller")?.packets, 7, "\(calls)")
        XCTAssertEqual(calls["noted"]?.tag("callee")?.learnedRTP,
                       [RTPEngineEndpoint(address: "127.0.0.1", port: callee.port)])
        XCTAssertNil(calls["unnoted"], "queried only once the relay had forgotten it")
    }
}
