@testable import CallstormCLI
import Foundation
import Metrics
import RunFormats
import TestSupport
import XCTest

/// Push-path faults that act on the gateway's connections and on delivery order (issue 5): whole runs with the
/// real embedded target, its libcurl APNs client over HTTP/2 and TLS, the push gateway and the devices.
final class PushPathFaultRunTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("pushfaults")
    }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    fileprivate func run(_ yaml: String, name: String = "run") throws -> RunCommand.Outcome {
        try runScenario(yaml, in: dir, file: name, out: name)
    }

    /// faults.csv rows (without the time column) of one kind.
    fileprivate func faultRows(_ run: URL, kind: String) throws -> [String] {
        let text = try String(contentsOf: run.appendingPathComponent("faults.csv"), encoding: .utf8)
        return FaultRow.rows(fromCSV: text).filter { $0.kind == kind }
            .map { "\($0.window),\($0.kind),\($0.subject),\($0.call),\($0.role),\($0.seq)" }
    }

    /// Calls and pushes are all accounted for: the books balance.
    fileprivate func assertBooksBalance(_ c: [String: Int64], file: StaticString = #filePath, line: UInt = #line) {
        let books = Books(counters: c)
        XCTAssertTrue(books.balanced, "\(books.problems)", file: file, line: line)
        XCTAssertEqual(c["calls.started"], c["calls.planned"], file: file, line: line)
    }

    fileprivate static let base = """
        seed: 7
        devices: 400
        push: { deadline: 2s }
        behavior:
          answer_after: { uniform: [50ms, 150ms] }
          talk: { constant: 300ms }
        drain: 10s
        action_timeout: 3s
        workers: 2
        """

    // MARK: - Reorder

    func testReorderedPushesAreDeliveredAfterTheDevicesLaterPushes() throws {
        let outcome = try run("""
            name: reorder
            \(Self.base)
            mix: { group-call: 100 }
            load:
              - hold: { rate: 15/s, for: 3s }
            faults:
              - { name: shuffled, at: 0s, for: 3s, push: { reorder: 30%, reorder_hold: 1500ms } }
            """)
        let c = outcome.result.recorder.counters
        assertBooksBalance(c)
        let reordered = try XCTUnwrap(c["faults.push.reordered"])
        XCTAssertGreaterThan(reordered, 20)
        XCTAssertEqual(try faultRows(outcome.runDirectory, kind: "push.reordered").count, Int(reordered))
        // A held push reaches its device after a push the gateway accepted later than it.
        let outOfOrder = c["pushes.delivered_out_of_order"] ?? 0
        XCTAssertGreaterThan(outOfOrder, 5, "\(c.filter { $0.key.hasPrefix("pushes.") })")
        XCTAssertLessThanOrEqual(outOfOrder, reordered + 5)
        // Group calls send each device several pushes, so most held ones have a later push to be overtaken by;
        // a view older than the one the device has is set aside by its version (`pushes.out_of_order`).
        XCTAssertGreaterThan(c["pushes.out_of_order"] ?? 0, 0)
    }

    // MARK: - Brown-out

    func testBrownoutRefusesEveryPushWith503ForTheWindowAndThoseCallsAreMissed() throws {
        // A target that never retries (push.retries: 0), so every refused push is a missed call.
        let outcome = try run("""
            name: brownout-refuse
            \(Self.base.replacingOccurrences(of: "deadline: 2s", with: "deadline: 2s, retries: 0"))
            load:
              - hold: { rate: 30/s, for: 3s }
            faults:
              - { name: apns-down, at: 1s, for: 1s, push: { brownout: refuse } }
            """)
        let c = outcome.result.recorder.counters
        assertBooksBalance(c)
        let refused = try XCTUnwrap(c["faults.push.brownout_refused"])
        XCTAssertGreaterThan(refused, 15)
        // Every refusal is a 503 the gateway answered; nothing else was rejected.
        XCTAssertEqual(c["gateway.pushes.rejected"], refused)
        XCTAssertEqual(try faultRows(outcome.runDirectory, kind: "push.brownout_refused").count, Int(refused))
        // A refused VoIP push never rings: its call is missed, not lost; calls outside the window complete.
        XCTAssertGreaterThan(c["calls.missed"] ?? 0, 10)
        XCTAssertLessThanOrEqual(c["calls.missed"] ?? 0, refused)
        XCTAssertGreaterThan(c["calls.completed"] ?? 0, 40)
        // The refusals happened inside the window only (load seconds 1 to 2, ± a tick).
        let loadStart = outcome.result.loadStartSecond
        for point in outcome.result.recorder.counterSeries("faults.push.brownout_refused") {
            XCTAssertGreaterThanOrEqual(Double(point.second) + 1, loadStart + 1, "\(point)")
            XCTAssertLessThanOrEqual(Double(point.second), loadStart + 2, "\(point)")
        }
        // The report's fault table says what the window was set to do and what it did.
        let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("push: brownout (refuse)"))
        XCTAssertTrue(html.contains("push.brownout_refused \(refused)"), "fault table counts the refusals")
    }

    func testATargetThatRetries503WithBackoffRecoversFromABrownoutAndNoCallIsMissed() throws {
        // The default reference target retries 429/500/503 with backoff 100 ms × 2^n, 4 times (1.5 s in all):
        // a 500 ms outage costs rings a little later, not calls.
        let outcome = try run("""
            name: brownout-retried
            \(Self.base)
            load:
              - hold: { rate: 30/s, for: 3s }
            faults:
              - { name: apns-down, at: 1s, for: 500ms, push: { brownout: refuse } }
            """)
        let c = outcome.result.recorder.counters
        assertBooksBalance(c)
        let refused = try XCTUnwrap(c["faults.push.brownout_refused"])
        XCTAssertGreaterThan(refused, 10)
        let retried = try XCTUnwrap(c["target.pushes.retried"])
        XCTAssertGreaterThanOrEqual(retried, refused, "every refusal was tried again")
        XCTAssertGreaterThan(c["target.pushes.recovered"] ?? 0, 10)
        XCTAssertEqual(c["calls.missed"] ?? 0, 0, "every refused push got through on a retry")
        XCTAssertEqual(c["pushes.received.voip"], c["calls.started"])
    }

    func testBrownoutStallHoldsAnswersUntilTheWindowEndsThenAcceptsThem() throws {
        let outcome = try run("""
            name: brownout-stall
            \(Self.base)
            push: { deadline: 3s }
            load:
              - hold: { rate: 30/s, for: 3s }
            faults:
              - { name: apns-stuck, at: 1s, for: 1s, push: { brownout: stall } }
            """.replacingOccurrences(of: "push: { deadline: 2s }\n", with: ""))
        let c = outcome.result.recorder.counters
        assertBooksBalance(c)
        let stalled = try XCTUnwrap(c["faults.push.brownout_stalled"])
        XCTAssertGreaterThan(stalled, 15)
        // Stalled, not refused: the gateway rejected nothing and every call rang in the end.
        XCTAssertEqual(c["gateway.pushes.rejected"] ?? 0, 0)
        XCTAssertEqual(c["calls.missed"] ?? 0, 0)
        XCTAssertEqual(c["pushes.received.voip"], c["calls.started"])
        // Calls dialled inside the window rang only when it ended: dial-to-ring has a tail of up to 1 s that
        // calls outside it (most of them) do not have.
        let dial = try XCTUnwrap(outcome.result.recorder.histograms["dial_to_ring"])
        XCTAssertGreaterThan(dial.value(atPercentile: 95), 600_000, "p95 \(dial.value(atPercentile: 95)) µs")
        XCTAssertLessThan(dial.value(atPercentile: 50), 400_000, "p50 \(dial.value(atPercentile: 50)) µs")
    }

    // MARK: - GOAWAY

    func testGoAwayMakesTheTargetsAPNsClientReconnectWithoutLosingPushes() throws {
        let outcome = try run("""
            name: goaway
            \(Self.base)
            load:
              - hold: { rate: 30/s, for: 3s }
            faults:
              - { name: apns-goaway, at: 0s, for: 3s, push: { goaway: 10% } }
            """)
        let c = outcome.result.recorder.counters
        assertBooksBalance(c)
        let decided = try XCTUnwrap(c["faults.push.goaway"])
        XCTAssertGreaterThan(decided, 5)
        XCTAssertEqual(try faultRows(outcome.runDirectory, kind: "push.goaway").count, Int(decided))
        // Each decision sent a GOAWAY unless its connection was already going away; the client reconnected.
        let sent = try XCTUnwrap(c["gateway.goaways_sent"])
        XCTAssertGreaterThan(sent, 3)
        XCTAssertLessThanOrEqual(sent, decided)
        XCTAssertGreaterThan(c["gateway.connections"] ?? 0, sent, "a new connection after each GOAWAY")
        // A graceful GOAWAY loses nothing: the client re-sent what the server had not taken, every call rang.
        XCTAssertEqual(c["gateway.pushes.rejected"] ?? 0, 0)
        XCTAssertEqual(c["calls.missed"] ?? 0, 0)
        XCTAssertEqual(c["pushes.received.voip"], c["calls.started"])
        XCTAssertEqual(c["pushes.voip_without_call"] ?? 0, 0)
    }

    // MARK: - Delivery after expiry

    func testPushDelayedPastItsExpirationIsDiscardedAsAPNsWouldAndItsCallMissed() throws {
        let outcome = try run("""
            name: expired
            \(Self.base.replacingOccurrences(of: "deadline: 2s", with: "deadline: 5s, expiration: 1s"))
            load:
              - hold: { rate: 20/s, for: 3s }
            faults:
              - { name: late-apns, at: 1s, for: 1s, push: { delay: 2500ms } }
            """)
        let c = outcome.result.recorder.counters
        assertBooksBalance(c)
        // apns-expiration is now + 1 s (a whole epoch second): every push 2.5 s late expired on the way, no other.
        // (Background pushes of those calls still on their way when the run ended are undelivered at stop.)
        let delayed = try XCTUnwrap(c["faults.push.delayed"])
        let voip = try XCTUnwrap(c["faults.push.delayed.voip"])
        XCTAssertGreaterThan(voip, 10)
        let expired = c["pushes.expired_discarded"] ?? 0
        XCTAssertGreaterThanOrEqual(expired, voip)
        XCTAssertLessThanOrEqual(expired, delayed)
        // Their calls never rang: missed, the rest complete.
        XCTAssertEqual(c["calls.missed"], voip)
        XCTAssertEqual(c["calls.missed_push"], voip)
        XCTAssertEqual((c["calls.completed"] ?? 0) + voip, c["calls.started"])
    }
}

/// Device clock skew: the reference target measures push-to-report from the device's report time, as a server
/// that trusts device timestamps does.
extension PushPathFaultRunTests {
    func testClockSkewMovesTheTargetsDeviceClockLatencyButNotTheDevicesOwn() throws {
        let outcome = try run("""
            name: skewed-clocks
            \(Self.base)
            load:
              - hold: { rate: 30/s, for: 2s }
            faults:
              - { name: skew, at: 0s, for: 2s, devices: 50%, device: { clock_skew: 10s } }
            """)
        let recorder = outcome.result.recorder
        let c = recorder.counters
        assertBooksBalance(c)
        let skewed = try XCTUnwrap(c["faults.device.clock_skewed"])
        XCTAssertGreaterThan(skewed, 20)
        XCTAssertEqual(try faultRows(outcome.runDirectory, kind: "device.clock_skewed").count, Int(skewed))
        // The devices' own measure does not move: their clocks are monotonic, skew is in wall-clock time only.
        let own = try XCTUnwrap(recorder.histograms["push_to_report"])
        XCTAssertLessThan(own.value(atPercentile: 99), 500_000)
        // The target's, from device timestamps: exact for the unskewed half, seconds off (or below zero) for the
        // skewed half.
        let negative = c["target.report_latency_device_clock.negative"] ?? 0
        XCTAssertGreaterThan(negative, 5)
        let target = try XCTUnwrap(recorder.histograms["target.report_latency_device_clock"])
        XCTAssertEqual(target.totalCount + negative, c["calls.started"])
        XCTAssertLessThan(target.value(atPercentile: 50), 500_000, "unskewed devices report within ms")
        XCTAssertGreaterThan(target.value(atPercentile: 95), 2_000_000, "skewed ones seconds late")
    }
}
