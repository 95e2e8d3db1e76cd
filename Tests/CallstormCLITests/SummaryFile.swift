import Foundation
import XCTest

/// A summary.json read back loosely: counters and metric figures.
struct SummaryFile {
    var counters: [String: Int64]
    var metrics: [String: [String: Double]]
    var passed: Bool
    var reasons: [String]
    var notes: [String]

    init(_ url: URL) throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        counters = (json["counters"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.int64Value }
        metrics = (json["metrics"] as? [String: Any] ?? [:]).compactMapValues { value in
            (value as? [String: Any])?.compactMapValues { ($0 as? NSNumber)?.doubleValue }
        }
        let verdict = json["verdict"] as? [String: Any] ?? [:]
        passed = verdict["passed"] as? Bool ?? false
        reasons = verdict["reasons"] as? [String] ?? []
        notes = json["notes"] as? [String] ?? []
    }
}
