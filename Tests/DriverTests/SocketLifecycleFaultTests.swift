import XCTest
@testable import Driver
import Scenario

/// The lifecycle under socket faults: a socket lost just before a VoIP push still reconnects after its backoff
/// (seen under a `socket_storm`: the push made the pending reconnect stale, and the device never came back).
final class SocketLifecycleFaultTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    func testAPushWhileAReconnectIsPendingDoesNotCancelIt() {
        var m = SocketLifecycle(mode: .always, reconnect: SocketReconnect(baseNanos: 100 * ms, maxNanos: 1000 * ms,
                                                                          jitter: 0),
                                lingerNanos: 0, seed: 7, devices: [10])
        m.registered(0, now: 0)
        m.opened(0, now: ms)
        m.closed(0, byServer: false, lost: true, code: 1006, protocolKind: nil, live: false, now: 10 * ms)
        let reconnect = m.take().compactMap { effect -> SocketTimer? in
            if case .arm(let timer, at: 110 * ms) = effect { return timer }
            return nil
        }
        XCTAssertEqual(reconnect.count, 1)
        m.pushReported(0, conversation: "c1", acceptedNanos: 20 * ms, now: 21 * ms)
        XCTAssertEqual(m.take(), [], "an always app waits for its backoff")
        m.fired(reconnect[0], live: false, now: 110 * ms)
        XCTAssertTrue(m.take().contains(.open(device: 0)), "the reconnect still happens")
        XCTAssertEqual(m[0].phase, .connecting)
    }
}
