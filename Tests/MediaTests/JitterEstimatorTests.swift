import Media
import XCTest

final class JitterEstimatorTests: XCTestCase {
    /// Five PCMU packets sent every 20 ms (RTP timestamps 0, 160, 320, 480, 640 at 8 kHz), arriving at 0, 20, 45,
    /// 60 and 80 ms. By hand, with D = (R_i − R_{i−1}) − (S_i − S_{i−1}) in timestamp units (8 per ms) and
    /// J += (|D| − J) / 16 (RFC 3550 §6.4.1):
    ///   packet 2: D = 160 − 160 = 0     J = 0
    ///   packet 3: D = 200 − 160 = 40    J = 0 + (40 − 0) / 16 = 2.5
    ///   packet 4: D = 120 − 160 = −40   J = 2.5 + (40 − 2.5) / 16 = 4.84375
    ///   packet 5: D = 160 − 160 = 0     J = 4.84375 + (0 − 4.84375) / 16 = 4.541015625
    /// J = 4.541015625 units = 0.567626953125 ms; the highest J was 4.84375.
    func testTheHandComputedTrace() {
        var jitter = JitterEstimator()
        let arrivalsMillis: [UInt64] = [0, 20, 45, 60, 80]
        for (i, ms) in arrivalsMillis.enumerated() {
            jitter.note(arrivalNanos: 5_000_000_000 + ms * 1_000_000, timestamp: UInt32(i * 160))
        }
        XCTAssertEqual(jitter.jitter, 4.541015625, accuracy: 1e-9)
        XCTAssertEqual(jitter.jitterMillis, 0.567626953125, accuracy: 1e-9)
        XCTAssertEqual(jitter.maxJitter, 4.84375, accuracy: 1e-9)
    }

    func testTheRTPTimestampWrapIsNotJitter() {
        var jitter = JitterEstimator()
        jitter.note(arrivalNanos: 0, timestamp: UInt32.max - 79)
        jitter.note(arrivalNanos: 20_000_000, timestamp: 80)
        XCTAssertEqual(jitter.jitter, 0)
    }

    func testAConstantDelayIsNoJitter() {
        var stats = RTPReceiverStatistics()
        for i in 0..<50 {
            stats.note(sequence: UInt16(i), timestamp: UInt32(i * 160), payloadBytes: 160,
                       arrivalNanos: 30_000_000 + UInt64(i) * 20_000_000, sentNanos: UInt64(i) * 20_000_000)
        }
        XCTAssertEqual(stats.jitter.jitter, 0)
        XCTAssertEqual(stats.transit.meanMillis, 30)
        XCTAssertEqual(stats.octets, 50 * 160)
        XCTAssertEqual(stats.firstArrivalNanos, 30_000_000)
    }

    /// A source that restarts (new sequence, timestamps far from the old ones) on schedule adds no jitter: the
    /// difference across the restart is not a network's.
    func testARestartedSourceOnScheduleAddsNoJitter() {
        var stats = RTPReceiverStatistics()
        for i in 0..<10 {
            stats.note(sequence: UInt16(100 + i), timestamp: UInt32(i * 160), payloadBytes: 160,
                       arrivalNanos: UInt64(i) * 20_000_000)
        }
        for i in 0..<10 {
            stats.note(sequence: UInt16(40_000 + i), timestamp: UInt32(9_000_000 + i * 160), payloadBytes: 160,
                       arrivalNanos: UInt64(10 + i) * 20_000_000)
        }
        XCTAssertEqual(stats.sequence.restarts, 1)
        XCTAssertEqual(stats.jitter.maxJitter, 0)
    }
}
