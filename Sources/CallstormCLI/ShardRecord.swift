import Foundation
import Reports
import Results

/// `shard.json` in a run directory: what `callstorm merge` needs beyond the raw recorders to put shards on one
/// time axis and to check that they are the parts of one run.
struct ShardRecord: Codable, Equatable {
    static let fileName = RunBundle.shardRecordFileName
    static let currentSchema = "callstorm.shard/1"

    var schema = Self.currentSchema
    /// `i/N`.
    var shard: String
    var shardIndex: Int
    var shardCount: Int
    var scenario: String
    var seed: UInt64
    /// Devices of the whole run (not of this shard).
    var devices: Int
    /// Unix second of the recorder's second 0 (a whole wall-clock second on this machine's clock).
    var originUnixSeconds: Int64
    /// Seconds after the origin at which this shard's load began.
    var loadStartSecond: Double
    /// The `--start-at` instant, when given.
    var startAt: Date?
    var clockOffset: ClockOffset?
    var facts: RunFacts
    var notes: [String]

    func write(to run: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        try RunResults.replaceFile(run.appendingPathComponent(Self.fileName), with: encoder.encode(self))
    }

    static func read(run: URL) throws -> ShardRecord {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(ShardRecord.self, from: Data(contentsOf: run.appendingPathComponent(fileName)))
    }
}

/// This machine's clock against a reference clock: `reference ≈ local + offsetSeconds`, within ± uncertainty.
struct ClockOffset: Codable, Equatable {
    /// How it was measured, e.g. "HTTP Date header of http://… (42 samples)".
    var method: String
    var offsetSeconds: Double
    var uncertaintySeconds: Double

    var text: String {
        String(format: "%+.3f s ± %.3f s (%@)", offsetSeconds, uncertaintySeconds, method)
    }
}
