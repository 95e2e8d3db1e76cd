import Foundation
import RunFormats

/// Words for the report's fault table: what a window was set to do, and what the fault log says it did.
public enum FaultDescription {
    /// `push: delay 200ms, drop 10% · network: reset 1%` — the window's settings, one part per section: each fault
    /// says its own (`Fault.summary(of:)`), in the registry's order; a network section is said toxic by toxic.
    public static func describe(_ w: FaultWindow) -> String {
        var parts: [String] = []
        if w.push != nil { parts.append("push: " + summaries(.push, of: w).joined(separator: ", ")) }
        if w.device != nil { parts.append("device: " + summaries(.device, of: w).joined(separator: ", ")) }
        if let n = w.network {
            let items = n.toxics.keys.sorted().map { key -> String in
                let values = n.toxics[key] ?? [:]
                if let t = values["toxicity"] { return "\(key) \(percent(t))" }
                let settings = values.sorted { $0.key < $1.key }.map { String(format: "%g", $0.value) + " \($0.key)" }
                return "\(key) " + settings.joined(separator: " ")
            }
            var text = "network (\(n.direction)): " + items.joined(separator: ", ")
            if n.probability < 1 { text += " on \(percent(n.probability)) of connections" }
            parts.append(text)
        }
        // Each target fault is a part of its own, the storm before the kill (as the report has always said them).
        parts += summaries(.target, of: w).reversed().map { "target: " + $0 }
        if let s = w.sip { parts.append("sip: " + describe(s)) }
        if w.devices < 1 { parts.append("on \(percent(w.devices)) of devices") }
        return parts.joined(separator: " · ")
    }

    /// `loss 10% (receive: INVITE, 200), late_wake 50% after 4s`: which way and which messages qualify the
    /// message faults (`loss`, `delay`), said once after the last of them.
    static func describe(_ s: SIPFaults) -> String {
        let w = FaultWindow(name: "", atNanos: 0, forNanos: 0, sip: s)
        let kinds = FaultRegistry.all.filter { $0.family == .sip }
        var items = kinds.filter { $0 is any SIPMessageFault.Type }.compactMap { $0.summary(of: w) }
        if !items.isEmpty, s.direction != .both || !s.messages.isEmpty {
            let which = s.messages.isEmpty ? "" : ": " + s.messages.joined(separator: ", ")
            items[items.count - 1] += " (\(s.direction.rawValue)\(which))"
        }
        items += kinds.filter { !($0 is any SIPMessageFault.Type) }.compactMap { $0.summary(of: w) }
        return items.joined(separator: ", ")
    }

    /// The summaries of `family`'s faults that `window` sets, in the registry's order.
    static func summaries(_ family: FaultFamily, of window: FaultWindow) -> [String] {
        FaultRegistry.all.filter { $0.family == family }.compactMap { $0.summary(of: window) }
    }

    /// `10%`, `2.5%`: a share as the report writes it.
    public static func percent(_ share: Double) -> String { String(format: "%g%%", share * 100) }

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
