import Foundation
import TestSupport
import XCTest

/// Acceptance 1 and 2 of issue 9: the same scenario as one process and as four shard processes on this machine,
/// merged; thresholds decided on the union. Runs the callstorm binary `make test` exports.
final class DistributedRunTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("shards")
    }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    /// Plenty of devices (no call can be dropped for want of an idle device, in any shard) and every flow kind.
    static let scenario = """
        name: shards
        seed: 11
        devices: 600
        push: { listen: "127.0.0.1:0", deadline: 2s }
        load:
          - ramp: { from: 0/s, to: 40/s, over: 1s }
          - hold: { rate: 40/s, for: 3s }
        mix: { incoming-1to1: 60, hold-resume: 20, group-merge: 20 }
        behavior:
          answer_after: { uniform: [50ms, 150ms] }
          talk: { constant: 300ms }
        drain: 20s
        action_timeout: 5s
        """

    /// Counters that count calls, actions and their outcomes, devices and flows; timing-dependent ones (a
    /// push racing its HTTP response: pushes.out_of_order, pushes.stale) are left out.
    static func isPlanCounter(_ name: String) -> Bool {
        ["calls.", "action.", "step_outcome.", "flow.", "devices."].contains { name.hasPrefix($0) }
    }

    private func binary() throws -> String {
        guard let bin = ChildProcess.callstormBinary else {
            throw XCTSkip("CALLSTORM_BIN is not set (make test sets it to the callstorm binary it built)")
        }
        return bin
    }

    /// Four shard processes of the scenario, run once for every test of the class (each asks its own question of
    /// the same shards) into a directory `tearDown()` of the class removes.
    private static let sharedDirectory = TemporaryDirectory.path("shards-shared")
    private static let fourShards = SharedResult<[URL]> {
        guard let bin = ChildProcess.callstormBinary else {
            throw XCTSkip("CALLSTORM_BIN is not set (make test sets it to the callstorm binary it built)")
        }
        try FileManager.default.createDirectory(at: sharedDirectory, withIntermediateDirectories: true)
        return try runShards(bin, count: 4, in: sharedDirectory)
    }

    override class func tearDown() {
        TemporaryDirectory.remove(sharedDirectory)
        super.tearDown()
    }

    private static func runShards(_ bin: String, count: Int, in dir: URL) throws -> [URL] {
        let file = dir.appendingPathComponent("s.yaml")
        try Self.scenario.write(to: file, atomically: true, encoding: .utf8)
        let f = ISO8601DateFormatter()
        let startAt = f.string(from: Date().addingTimeInterval(4).rounded())
        var children: [ChildProcess] = []
        defer { children.forEach { $0.stop() } }
        for i in 0..<count {
            children.append(try ChildProcess.start(bin, [
                "run", file.path, "--shard", "\(i)/\(count)", "--start-at", startAt, "--workers", "1", "--quiet",
                "--out", dir.appendingPathComponent("shard-\(i)").path,
            ], in: dir, logs: dir, name: "shard-\(i)"))
        }
        for (i, child) in children.enumerated() {
            let status = child.wait(seconds: 90)
            XCTAssertEqual(status, 0, "shard \(i)/\(count): \(child.errorText)")
        }
        return (0..<count).map { dir.appendingPathComponent("shard-\($0)") }
    }

    /// The shards' actions.csv latencies in µs, under `<kind>.fulfillment` and `<kind>.fulfillment@<flow>/<step>`.
    private func fulfillmentSamples(_ shards: [URL]) throws -> [String: [Int64]] {
        var samples: [String: [Int64]] = [:]
        for shard in shards {
            let text = try String(contentsOf: shard.appendingPathComponent("actions.csv"), encoding: .utf8)
            for row in text.split(separator: "\n").dropFirst() {
                let cols = row.split(separator: ",", omittingEmptySubsequences: false)
                guard cols.count == 11, let ms = Double(cols[10]) else { continue }
                let micros = Int64((ms * 1000).rounded())
                samples["\(cols[1]).fulfillment", default: []].append(micros)
                samples["\(cols[1]).fulfillment@\(cols[2])", default: []].append(micros)
            }
        }
        return samples
    }

    func testFourShardProcessesMergeToTheCountsOfOneProcessAndExactPercentiles() throws {
        let bin = try binary()
        let file = dir.appendingPathComponent("s.yaml")
        try Self.scenario.write(to: file, atomically: true, encoding: .utf8)
        let one = try ChildProcess.run(bin, ["run", file.path, "--out", dir.appendingPathComponent("one").path,
                                             "--quiet", "--workers", "2"], in: dir, logs: dir, name: "one")
        XCTAssertEqual(one.status, 0, one.err)
        let shards = try Self.fourShards.value()
        let merged = try ChildProcess.run(bin, ["merge"] + shards.map(\.path) + [
            "--out", dir.appendingPathComponent("merged").path,
        ], in: dir, logs: dir, name: "merge")
        XCTAssertEqual(merged.status, 0, merged.err + merged.out)

        let single = try SummaryFile(dir.appendingPathComponent("one/summary.json"))
        let union = try SummaryFile(dir.appendingPathComponent("merged/summary.json"))
        let names = Set(single.counters.keys).union(union.counters.keys).filter(Self.isPlanCounter)
        XCTAssertGreaterThan(single.counters["calls.completed"] ?? 0, 100)
        XCTAssertEqual(single.counters["calls.dropped.no_idle_device"], nil)
        for name in names.sorted() {
            XCTAssertEqual(single.counters[name] ?? 0, union.counters[name] ?? 0, "counter \(name)")
        }
        for name in single.metrics.keys where !name.hasPrefix("register") && name != "scheduler_lag" {
            XCTAssertEqual(single.metrics[name]?["count"], union.metrics[name]?["count"], "samples of \(name)")
        }
        // Every device registered exactly once, over the four shards.
        XCTAssertEqual(union.counters["devices.registered"], 600)

        // Merged percentiles, per kind and per flow step, equal the percentiles of the union of the four
        // processes' raw samples (actions.csv rows, microsecond latencies) to HdrHistogram's 3 significant digits.
        let samples = try fulfillmentSamples(shards)
        XCTAssertFalse(samples.isEmpty)
        for (metric, values) in samples {
            let sorted = values.sorted()
            XCTAssertEqual(Double(sorted.count), union.metrics[metric]?["count"], metric)
            for (label, p) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("max", 100.0)] {
                let rank = max(1, Int((p / 100 * Double(sorted.count)).rounded(.up)))
                let exact = Double(sorted[rank - 1]) / 1000
                guard let reported = union.metrics[metric]?[label] else { return XCTFail("\(metric).\(label)") }
                XCTAssertEqual(reported, exact, accuracy: exact * 0.002 + 0.002, "\(metric) \(label)")
            }
        }
        // The histories are joined on one axis: every shard's lines, op ids unique, t non-decreasing, and the
        // union passes the checker as the single run does.
        var shardLines = 0
        for shard in shards {
            shardLines += try String(contentsOf: shard.appendingPathComponent("history.jsonl"), encoding: .utf8)
                .split(separator: "\n").count
        }
        let history = try String(contentsOf: dir.appendingPathComponent("merged/history.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        XCTAssertEqual(history.count, shardLines)
        var lastT: UInt64 = 0
        var invoked = Set<UInt64>()
        for line in history {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let t = try XCTUnwrap((object["t"] as? NSNumber)?.uint64Value)
            XCTAssertGreaterThanOrEqual(t, lastT)
            lastT = t
            if object["type"] as? String == "invoke", let op = (object["op"] as? NSNumber)?.uint64Value {
                XCTAssertTrue(invoked.insert(op).inserted, "op \(op) invoked twice in the merged history")
            }
        }
        XCTAssertGreaterThan(invoked.count, 100)
        let check = try ChildProcess.run(bin, ["check", dir.appendingPathComponent("merged").path],
                                         in: dir, logs: dir, name: "check")
        XCTAssertEqual(check.status, 0, check.out + check.err)
        XCTAssertTrue(check.out.contains("\(invoked.count) operations"), check.out)

        // The merge says how the shards' clocks and starts lined up.
        XCTAssertTrue(union.notes.contains { $0.contains("load starts spread over") }, "\(union.notes)")
        XCTAssertEqual(union.notes.filter { $0.hasPrefix("Shard ") && $0.contains("clock offset:") }.count, 4, "\(union.notes)")
    }

    func testThresholdOnlyTheUnionBreaksFailsTheMergeAndNoShardAlone() throws {
        let bin = try binary()
        let shards = try Self.fourShards.value()
        var completed: [Int64] = []
        for shard in shards {
            completed.append(try SummaryFile(shard.appendingPathComponent("summary.json")).counters["calls.completed"] ?? 0)
        }
        let total = completed.reduce(0, +)
        XCTAssertGreaterThan(completed.min() ?? 0, 0)
        // Every shard completed fewer calls than the union; "fewer than the union" holds per shard only.
        let threshold = "calls.completed < \(total); join.fulfillment.p99 < 5s"
        for (i, shard) in shards.enumerated() {
            let alone = try ChildProcess.run(bin, ["merge", shard.path, "--out", dir.appendingPathComponent("alone-\(i)").path,
                                                   "--threshold", threshold], in: dir, logs: dir, name: "alone-\(i)")
            XCTAssertEqual(alone.status, 0, "shard \(i) alone: \(alone.out)\(alone.err)")
        }
        let all = try ChildProcess.run(bin, ["merge"] + shards.map(\.path) + [
            "--out", dir.appendingPathComponent("merged").path, "--threshold", threshold,
        ], in: dir, logs: dir, name: "merge")
        XCTAssertEqual(all.status, 1, all.out + all.err)
        let summary = try SummaryFile(dir.appendingPathComponent("merged/summary.json"))
        XCTAssertFalse(summary.passed)
        XCTAssertTrue(summary.reasons.contains("calls.completed < \(total): measured \(total) (FAIL)"), "\(summary.reasons)")
        XCTAssertFalse(summary.reasons.contains { $0.hasPrefix("join.fulfillment.p99 < 5s") && $0.hasSuffix("(FAIL)") },
                       "\(summary.reasons)")
    }

    func testMergeRefusesAShardGivenTwice() throws {
        let bin = try binary()
        let shards = try Self.fourShards.value()
        let twice = try ChildProcess.run(bin, ["merge", shards[0].path, shards[0].path, shards[1].path,
                                               "--out", dir.appendingPathComponent("m").path],
                                         in: dir, logs: dir, name: "twice")
        XCTAssertEqual(twice.status, 2)
        XCTAssertTrue(twice.err.contains("shard 0/4 is given 2 times"), twice.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("m").path))
    }
}

extension Date {
    func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.up)) }
}
