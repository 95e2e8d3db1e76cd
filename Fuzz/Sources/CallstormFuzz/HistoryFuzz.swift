@testable import Checker
import Foundation

/// A run directory's history.jsonl as `callstorm check DIR` and `callstorm report DIR` read it (a user may hand them
/// any directory): the whole input through `HistoryReader.parse(buffer:)` with and without the `sip` lines' texts,
/// and each line through the fixed-shape reader (`HistoryReader.fixedLine`, the writer's own shapes read by their
/// bytes) and the general scanner. The fixed-shape reader may leave a line to the scanner, but what it reads must be
/// what the scanner reads: a difference is a crash.
func fuzzHistory(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { all in
        _ = try? HistoryReader.parse(buffer: all)
        _ = try? HistoryReader.parse(buffer: all, sipMessages: false)
        var texts = TextTable()
        var start = 0
        var number = 0
        while start <= all.count {
            let stop = all[start...].firstIndex(of: 0x0A) ?? all.count
            number += 1
            let line = UnsafeBufferPointer(rebasing: all[start..<stop])
            for messages in [true, false] {
                guard let fast = HistoryReader.fixedLine(line, number: number, texts: &texts,
                                                         sipMessages: messages) else { continue }
                let general = try? HistoryReader.generalLine(line, number: number, sipMessages: messages)
                precondition(general == fast, "the fixed-shape reader and the scanner read line \(number) differently")
            }
            start = stop + 1
        }
    }
}
