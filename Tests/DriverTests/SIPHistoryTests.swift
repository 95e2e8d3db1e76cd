@testable import Driver
import Metrics
import XCTest

/// SIP calls in the run's history on the embedded loop (what SIPRunTests and SIPRaceRunTests read through
/// Kamailio): each device's dialog lines as its state changes (early at the 180, confirmed at the 2xx, terminated
/// with its reason at both ends), and the `sip` message lines of the sampled calls.
final class SIPHistoryTests: XCTestCase {
    /// The dialog lines of one Call-ID, as `device state[ reason]` in order.
    private func dialogs(_ lines: [String], _ callID: String) -> [String] {
        lines.filter { $0.contains("\"conversation\":\"\(callID)\"") }.map { line in
            let device = field(line, "device") ?? "?"
            let state = field(line, "state") ?? "?"
            return [device, state, field(line, "reason")].compactMap { $0 }.joined(separator: " ")
        }
    }

    private func field(_ line: String, _ name: String) -> String? {
        guard let start = line.range(of: "\"\(name)\":\"")?.upperBound,
              let end = line[start...].firstIndex(of: "\"") else { return nil }
        return String(line[start..<end])
    }

    func testEachEndWritesItsDialogEarlyConfirmedAndTerminatedWithTheReasonItEnded() throws {
        let rig = try SIPRig(SIPRig.scenario(rate: "1/s", seconds: 1, sleep: false), history: true)
        let c = rig.run().counters
        XCTAssertEqual(c[MetricName.callsCompleted], 1, "\(c)")
        let lines = try rig.history("dialog")
        let callID = try XCTUnwrap(lines.first.flatMap { field($0, "conversation") })
        let seen = dialogs(lines, callID)
        let caller = try XCTUnwrap(seen.first?.split(separator: " ").first.map(String.init))
        let callee = try XCTUnwrap(seen.first { !$0.hasPrefix(caller + " ") }?.split(separator: " ").first
            .map(String.init))
        XCTAssertEqual(seen.filter { $0.hasPrefix(caller + " ") }.map { $0.dropFirst(caller.count + 1) }
            .prefix(2), ["early", "confirmed"], "\(seen)")
        XCTAssertEqual(seen.filter { $0.hasPrefix(callee + " ") }.map { $0.dropFirst(callee.count + 1) }
            .prefix(2), ["early", "confirmed"], "\(seen)")
        // `hangup: random`: one end said BYE, the other heard it.
        let ends = Set(seen.filter { $0.contains(" terminated ") }.map { $0.split(separator: " ").last.map(String.init)
            ?? "" })
        XCTAssertEqual(ends, ["bye", "remote_bye"], "\(seen)")
        XCTAssertEqual(seen.count, 6, "three lines per end: \(seen)")
    }

    func testTheSampledCallsMessagesAreWrittenOncePerMessageAtEachEnd() throws {
        let rig = try SIPRig(SIPRig.scenario(rate: "1/s", seconds: 1, sleep: false), history: true)
        rig.run()
        let sip = try rig.history("sip")
        let words = sip.compactMap { field($0, "message") }
        for word in ["INVITE", "180 INVITE", "200 INVITE", "ACK", "BYE", "200 BYE"] {
            XCTAssertEqual(words.filter { $0 == word }.count, 2, "\(word) sent at one end, received at the other: "
                           + "\(words)")
        }
        XCTAssertFalse(words.contains { $0.contains("REGISTER") }, "registrations belong to no call")
    }
}
