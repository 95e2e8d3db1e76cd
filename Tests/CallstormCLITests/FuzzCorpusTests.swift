import Foundation
import TestSupport
import XCTest

/// The fuzz corpora (Fuzz/corpus/<target>/) and every crasher libFuzzer ever found (Fuzz/crashers/<target>-*)
/// replayed through the same targets `make fuzz` runs, without libFuzzer: a fixed crash stays fixed.
final class FuzzCorpusTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// CallstormFuzz, built beside the test bundle by `swift build --build-tests` / `swift test`.
    private var replayer: String? {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [dir, dir.deletingLastPathComponent(), Self.root.appendingPathComponent(".build/debug")]
            .map { $0.appendingPathComponent("CallstormFuzz").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func testEveryCorpusInputAndPastCrasherRunsWithoutACrash() throws {
        let binary = try XCTUnwrap(replayer, "swift build --product CallstormFuzz first")
        let crashers = (try? FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(
            "Fuzz/crashers").path)) ?? []
        let logs = try TemporaryDirectory.make("fuzz-replay")
        defer { TemporaryDirectory.remove(logs) }
        let targets = ["scenario", "http1", "http2", "json", "push", "websocket", "sip", "otlp", "bencode", "rtp",
                       "rtcp", "http1-response", "recorder", "history"]
        for target in targets {
            let corpus = Self.root.appendingPathComponent("Fuzz/corpus/\(target)").path
            let inputs = try FileManager.default.contentsOfDirectory(atPath: corpus)
            XCTAssertGreaterThanOrEqual(inputs.count, 4, "\(target) has a committed corpus")
            // A crasher belongs to the longest target name it starts with (http1-response-… is not http1's).
            let mine = crashers.filter { name in
                targets.filter { name.hasPrefix($0 + "-") }.max { $0.count < $1.count } == target
            }.map { Self.root.appendingPathComponent("Fuzz/crashers/\($0)").path }
            let result = try ChildProcess.run(binary, [target, corpus] + mine, in: Self.root, logs: logs,
                                              name: target, seconds: 300)
            XCTAssertEqual(result.status, 0, "\(target): \(result.err.suffix(2000))")
            XCTAssertTrue(result.out.contains("\(target): \(inputs.count + mine.count) inputs ran without a crash"),
                          result.out)
        }
    }
}
