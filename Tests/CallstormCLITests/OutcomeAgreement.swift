import Foundation
import XCTest

/// Issue 32: every action's outcome is one word in counters.csv and history.jsonl. Read both files of a finished
/// run and check, per action kind, that they count the same actions the same way, word for word: `fulfilled` is
/// history's `ok`, `timed_out` its `info` without a reason, `failed.<reason>` its `fail` with that reason and
/// `unknown.<reason>` (a failure whose effect is unknown: a 5xx, a reset, SIP's 408) its `info` with that reason;
/// the totals agree too, and every reason has one history word. The SIP end-to-end tests call it for every run.
func assertOutcomesAgree(run: URL, file: StaticString = #filePath, line: UInt = #line) throws {
    let csv = try String(contentsOf: run.appendingPathComponent("counters.csv"), encoding: .utf8)
    var counters: [String: Int64] = [:]
    for row in csv.split(separator: "\n").dropFirst() {
        let cells = row.split(separator: ",")
        if cells.count == 2, let value = Int64(cells[1]) { counters[String(cells[0])] = value }
    }
    let history = try String(contentsOf: run.appendingPathComponent("history.jsonl"), encoding: .utf8)
    var kinds: [Int: String] = [:]
    /// (kind, word, reason) → lines.
    var lines: [String: Int64] = [:]
    var words: [String: Set<String>] = [:]
    for text in history.split(separator: "\n") {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let type = object["type"] as? String, let op = object["op"] as? Int else { continue }
        if type == "invoke", let kind = object["kind"] as? String { kinds[op] = kind }
        guard type == "complete", let word = object["outcome"] as? String else { continue }
        let kind = kinds[op] ?? "?"
        let reason = object["reason"] as? String ?? ""
        lines["\(kind) \(word) \(reason)", default: 0] += 1
        if !reason.isEmpty { words[reason, default: []].insert(word) }
    }
    func count(_ kind: String, where match: (String, String) -> Bool) -> Int64 {
        lines.filter { key, _ in
            let parts = key.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            return parts[0] == kind && match(parts[1], parts[2])
        }.values.reduce(0, +)
    }
    let all = "\(lines.sorted { $0.key < $1.key })"
    let kindNames = Set(counters.keys.compactMap { name -> String? in
        let parts = name.split(separator: ".")
        return parts.count == 3 && parts[0] == "action" && parts[2] == "started" ? String(parts[1]) : nil
    })
    XCTAssertFalse(kindNames.isEmpty, "the run counted no action", file: file, line: line)
    for kind in kindNames.sorted() {
        func n(_ suffix: String) -> Int64 { counters["action.\(kind).\(suffix)"] ?? 0 }
        XCTAssertEqual(n("fulfilled"), count(kind) { word, reason in word == "ok" && reason.isEmpty },
                       "\(kind): counters.csv's fulfilled vs history's ok: \(all)", file: file, line: line)
        XCTAssertEqual(n("timed_out"), count(kind) { word, reason in word == "info" && reason.isEmpty },
                       "\(kind): counters.csv's timed_out vs history's info: \(all)", file: file, line: line)
        XCTAssertEqual(n("failed"), count(kind) { word, reason in word == "fail" && !reason.isEmpty },
                       "\(kind): counters.csv's failed vs history's fail lines: \(all)", file: file, line: line)
        XCTAssertEqual(n("unknown"), count(kind) { word, reason in word == "info" && !reason.isEmpty },
                       "\(kind): counters.csv's unknown vs history's info lines with a reason: \(all)",
                       file: file, line: line)
        for (label, word) in [("failed", "fail"), ("unknown", "info")] {
            let prefix = "action.\(kind).\(label)."
            for (name, value) in counters where name.hasPrefix(prefix) {
                let reason = String(name.dropFirst(prefix.count))
                XCTAssertEqual(value, count(kind) { w, r in w == word && r == reason },
                               "\(name) vs history's \(word) lines with reason \(reason): \(all)",
                               file: file, line: line)
            }
        }
        XCTAssertEqual(count(kind) { word, reason in word == "fail" && reason.isEmpty }, 0,
                       "\(kind): a fail line without a reason: \(all)", file: file, line: line)
        XCTAssertEqual(count(kind) { word, reason in word == "ok" && !reason.isEmpty }, 0,
                       "\(kind): an ok line with a failure reason: \(all)", file: file, line: line)
    }
    for (reason, seen) in words where seen.count != 1 || seen.contains("ok") {
        XCTFail("reason \(reason) is \(seen.sorted()) in history.jsonl: one outcome, one word", file: file, line: line)
    }
}
