import Foundation
import RunFormats
import Scenario

/// Words for the report's fault table: what a window was set to do, and what the fault log says it did.
public enum FaultDescription {
    /// `push: delay 200ms, drop 10% · network: reset 1%` — the window's settings, one part per section.
    public static func describe(_ w: FaultWindow) -> String {
        func pct(_ v: Double) -> String { String(format: "%g%%", v * 100) }
        var parts: [String] = []
        if let p = w.push {
            var items: [String] = []
            if let d = p.delay { items.append("delay \(d)") }
            if p.drop > 0 { items.append("drop \(pct(p.drop))") }
            if p.duplicate > 0 { items.append("duplicate \(pct(p.duplicate))") }
            if p.errorRate > 0 { items.append("error \(p.errorStatus) at \(pct(p.errorRate))") }
            if p.reorder > 0 {
                items.append("reorder \(pct(p.reorder)) (held up to \(Quantity.format(nanos: p.reorderHoldNanos)))")
            }
            if let b = p.brownout { items.append("brownout (\(b.rawValue))") }
            if p.goaway > 0 { items.append("goaway \(pct(p.goaway))") }
            parts.append("push: " + items.joined(separator: ", "))
        }
        if let d = w.device {
            var items: [String] = []
            if let r = d.reportDelay { items.append("report_delay \(r)") }
            if d.offline > 0 { items.append("offline \(pct(d.offline))") }
            if let j = d.joinDelay { items.append("join_delay \(j)") }
            if d.joinFailure > 0 { items.append("join_failure \(pct(d.joinFailure))") }
            if d.clockSkewNanos > 0 { items.append("clock_skew ±\(Quantity.format(nanos: d.clockSkewNanos))") }
            if let drop = d.socketDrop {
                let how = drop.code.map { " (close \($0))" } ?? " (abrupt)"
                items.append("socket_drop \(pct(drop.probability))" + how)
            }
            if let stall = d.socketStall {
                let share = stall.probability < 1 ? " on \(pct(stall.probability))" : ""
                items.append("socket_stall \(stall.duration)" + share)
            }
            parts.append("device: " + items.joined(separator: ", "))
        }
        if let n = w.network {
            let items = n.toxics.keys.sorted().map { key -> String in
                let values = n.toxics[key] ?? [:]
                if let t = values["toxicity"] { return "\(key) \(pct(t))" }
                let settings = values.sorted { $0.key < $1.key }.map { String(format: "%g", $0.value) + " \($0.key)" }
                return "\(key) " + settings.joined(separator: " ")
            }
            var text = "network (\(n.direction)): " + items.joined(separator: ", ")
            if n.probability < 1 { text += " on \(pct(n.probability)) of connections" }
            parts.append(text)
        }
        if let storm = w.target?.socketStorm {
            parts.append("target: socket_storm" + (storm.code.map { " (close \($0))" } ?? " (abrupt)"))
        }
        if let t = w.target, t.kill {
            let restart = t.restartAfterNanos.map { "restart after \(Quantity.format(nanos: $0))" }
                ?? "restart at the window's end"
            parts.append("target: kill (SIG\(t.signal)), \(restart)")
        }
        if let s = w.sip { parts.append("sip: " + describe(s)) }
        if w.devices < 1 { parts.append("on \(pct(w.devices)) of devices") }
        return parts.joined(separator: " · ")
    }

    /// `loss 10% (receive: INVITE, 200), late_wake 50% after 4s`.
    static func describe(_ s: SIPFaults) -> String {
        func pct(_ v: Double) -> String { String(format: "%g%%", v * 100) }
        var items: [String] = []
        if s.loss > 0 { items.append("loss \(pct(s.loss))") }
        if let d = s.delay { items.append("delay \(d)") }
        if !items.isEmpty, s.direction != .both || !s.messages.isEmpty {
            let which = s.messages.isEmpty ? "" : ": " + s.messages.joined(separator: ", ")
            items[items.count - 1] += " (\(s.direction.rawValue)\(which))"
        }
        if let late = s.lateWake { items.append("late_wake \(pct(late.probability)) after \(late.after)") }
        if s.lostRegister > 0 { items.append("lost_register \(pct(s.lostRegister))") }
        return items.joined(separator: ", ")
    }

    /// Rows of faults.csv counted per window and kind (`network.on`/`off` markers left out).
    public static func injectedByWindow(faultsCSV: String) -> [String: [String: Int]] {
        var out: [String: [String: Int]] = [:]
        for row in FaultRow.rows(fromCSV: faultsCSV) {
            if row.kind == NetworkPlan.switchedOn || row.kind == NetworkPlan.switchedOff { continue }
            out[row.window, default: [:]][row.kind, default: 0] += 1
        }
        return out
    }
}
