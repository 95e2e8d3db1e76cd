import Checker
import HistoryLoading
import Foundation

enum CheckerBench {
    static func run(arguments: [String]) {
        var conversations = 100_000
        var out: String?
        var keep: String?
        var args = arguments[...]
        while let a = args.popFirst() {
            switch a {
            case "--conversations": conversations = args.popFirst().flatMap(Int.init) ?? conversations
            case "--out": out = args.popFirst()
            case "--keep": keep = args.popFirst()
            default:
                print("usage: checker-bench [--conversations N] [--out FILE] [--keep HISTORY_FILE]")
                exit(2)
            }
        }
        // --keep leaves the history where a peer (make bench's Python json parse) can read the same bytes.
        let url = keep.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("checker-bench-\(ProcessInfo.processInfo.processIdentifier).jsonl")
        defer { if keep == nil { try? FileManager.default.removeItem(at: url) } }

        let clock = ContinuousClock()
        var bytes = 0
        let generate = clock.measure { bytes = SyntheticHistory.write(conversations: conversations, to: url) }
        var events: [HistoryEvent] = []
        let read = clock.measure {
            do { events = try HistoryReader.read(contentsOf: url) } catch {
                print("checker-bench: \(error)")
                exit(3)
            }
        }
        var report: CheckReport?
        let check = clock.measure { report = HistoryChecker.check(events) }
        guard let report else { exit(3) }
        let total = seconds(read) + seconds(check)
        let opsPerSecond = Double(report.operations) / total
        print("history: \(report.operations) operations, \(events.count) lines, \(bytes / 1_000_000) MB "
              + "(generated in \(fmt(seconds(generate))) s)")
        print("read:  \(fmt(seconds(read))) s")
        print("check: \(fmt(seconds(check))) s")
        print("total: \(fmt(total)) s, \(Int(opsPerSecond)) ops/s; violations \(report.violations.count), "
              + "indeterminate \(report.indeterminate)")
        if let first = report.violations.first { print("unexpected violation: \(first.rule.rawValue): \(first.message)") }
        if let out {
            let json = "{\"operations\":\(report.operations),\"lines\":\(events.count),\"bytes\":\(bytes),"
                + "\"readSeconds\":\(fmt(seconds(read))),\"checkSeconds\":\(fmt(seconds(check))),"
                + "\"totalSeconds\":\(fmt(total)),\"opsPerSecond\":\(Int(opsPerSecond)),"
                + "\"violations\":\(report.violations.count)}\n"
            do { try json.write(toFile: out, atomically: true, encoding: .utf8) } catch {
                print("checker-bench: cannot write \(out): \(error)")
                exit(3)
            }
        }
        exit(report.violations.isEmpty ? 0 : 1)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func fmt(_ x: Double) -> String { String(Int(x * 1000)) .padded() }
}

private extension String {
    /// Milliseconds as seconds with three decimals ("1234" → "1.234").
    func padded() -> String {
        let s = count < 4 ? String(repeating: "0", count: 4 - count) + self : self
        return String(s.dropLast(3)) + "." + String(s.suffix(3))
    }
}
