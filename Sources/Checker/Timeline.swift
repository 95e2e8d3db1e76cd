import CallModel
import TextEscaping

/// Sequence diagrams of a violation for the report: one lane per device and one for the server.
public enum Timeline {
    /// At most this many history lines are drawn; the violation's own events are always among them.
    public static let maximumRows = 40

    /// A self-contained SVG (no scripts, no external references) showing the history lines from the violation's
    /// first event to its breaking one that touch its conversations or ops; the breaking line is drawn in red.
    public static func svg(for violation: Violation, in events: [HistoryEvent]) -> String {
        let rows = selectRows(violation, events)
        let breaking = violation.breakingEvent
        let (lanes, deviceOf) = lanes(violation, events, rows: rows)
        let laneWidth = 150, left = 90, top = 56, rowHeight = 30
        let serverX = left + lanes.count * laneWidth + laneWidth / 2
        let width = serverX + laneWidth / 2 + 20
        let height = top + rows.count * rowHeight + 20
        func x(_ d: String?) -> Int {
            guard let d, let k = lanes.firstIndex(of: d) else { return serverX }
            return left + k * laneWidth + laneWidth / 2
        }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" "
        out += "viewBox=\"0 0 \(width) \(height)\" font-family=\"monospace\" font-size=\"11\">"
        out += "<title>\(violation.rule.rawValue.markupEscaped): \(violation.message.markupEscaped)</title>"
        out += "<defs><marker id=\"a\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" "
        out += "markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" fill=\"context-stroke\"/>"
        out += "</marker></defs>"
        out += "<text x=\"4\" y=\"14\" font-weight=\"bold\">\(violation.rule.rawValue.markupEscaped)</text>"
        for (name, lx) in lanes.map({ ($0, x($0)) }) + [("server", serverX)] {
            out += "<text x=\"\(lx)\" y=\"\(top - 14)\" text-anchor=\"middle\" font-weight=\"bold\">"
            out += "\(name.markupEscaped)</text>"
            out += "<line x1=\"\(lx)\" y1=\"\(top - 8)\" x2=\"\(lx)\" y2=\"\(height - 10)\" stroke=\"#bbb\"/>"
        }
        for (row, i) in rows.enumerated() {
            let e = events[i]
            let y = top + row * rowHeight + rowHeight / 2
            let color = i == breaking ? "#d00" : (violation.events.contains(i) ? "#000" : "#777")
            let weight = i == breaking ? " font-weight=\"bold\"" : ""
            out += "<text x=\"4\" y=\"\(y + 4)\" fill=\"\(color)\">\(milliseconds(e.t).markupEscaped)</text>"
            func arrow(from x1: Int, to x2: Int, dashed: Bool, label: String) {
                let dash = dashed ? " stroke-dasharray=\"4 3\"" : ""
                out += "<line x1=\"\(x1)\" y1=\"\(y)\" x2=\"\(x2)\" y2=\"\(y)\" stroke=\"\(color)\"\(dash) "
                out += "stroke-width=\"\(i == breaking ? 2 : 1)\" marker-end=\"url(#a)\"/>"
                out += "<text x=\"\((x1 + x2) / 2)\" y=\"\(y - 4)\" text-anchor=\"middle\" fill=\"\(color)\"\(weight)>"
                out += "\(label.markupEscaped)</text>"
            }
            switch e.body {
            case .invoke(let inv):
                var label = "op \(inv.op) \(inv.kind.rawValue) \(inv.conversation ?? "")"
                if let w = inv.with { label += "+\(w)" }
                if let m = inv.member { label += " -\(m)" }
                arrow(from: x(inv.device), to: serverX, dashed: false, label: label)
            case .complete(let c):
                var label = "op \(c.op) \(c.outcome.rawValue)"
                if let v = c.view { label += " \(describe(v))" }
                if let s = c.split { label += " split \(describe(s))" }
                arrow(from: serverX, to: x(deviceOf[c.op]), dashed: false, label: label)
            case .push(let p):
                var label = "push \(p.event.rawValue) \(p.conversation ?? "")"
                if let v = p.view { label += " \(describe(v))" }
                arrow(from: serverX, to: x(p.device), dashed: true, label: label)
            case .final(let f):
                let label = "final \(f.conversation): local \(f.local.state.rawValue)"
                    + (f.server.map { ", server \(describe($0))" } ?? "")
                let dx = x(f.device)
                out += mark("<circle cx=\"\(dx)\" cy=\"\(y)\" r=\"4\" fill=\"\(color)\"/>", dx, y, color, weight, label)
            case .sip(let m):
                let label = "\(m.message) \(m.conversation)"
                if m.sent {
                    arrow(from: x(m.device), to: serverX, dashed: true, label: label)
                } else {
                    arrow(from: serverX, to: x(m.device), dashed: true, label: label)
                }
            case .dialog(let d):
                let label = "dialog \(d.conversation): \(d.state.rawValue)" + (d.reason.map { " (\($0))" } ?? "")
                let dx = x(d.device)
                out += mark("<rect x=\"\(dx - 4)\" y=\"\(y - 4)\" width=\"8\" height=\"8\" fill=\"\(color)\"/>", dx, y,
                            color, weight, label)
            case .media(let m): out += mediaMark(m, x(m.device), y, color, weight)
            case .stop, .targetKilled:
                let what = e.body == .stop ? "stop" : "target killed"
                out += "<line x1=\"\(left)\" y1=\"\(y)\" x2=\"\(serverX)\" y2=\"\(y)\" stroke=\"\(color)\" "
                out += "stroke-dasharray=\"2 2\"/><text x=\"\(left)\" y=\"\(y - 4)\" fill=\"\(color)\">\(what)</text>"
            }
        }
        return out + "</svg>"
    }

    /// A mark (`shape`, drawn at `dx`, `y` on a device's lane) with its label beside it.
    private static func mark(_ shape: String, _ dx: Int, _ y: Int, _ color: String, _ weight: String,
                             _ label: String) -> String {
        shape + "<text x=\"\(dx + 8)\" y=\"\(y + 4)\" fill=\"\(color)\"\(weight)>\(label.markupEscaped)</text>"
    }

    /// A media line: a hollow circle on the device's lane.
    private static func mediaMark(_ m: MediaLine, _ dx: Int, _ y: Int, _ color: String, _ weight: String) -> String {
        mark("<circle cx=\"\(dx)\" cy=\"\(y)\" r=\"4\" fill=\"none\" stroke=\"\(color)\"/>", dx, y, color, weight,
             "media \(m.conversation): \(m.finding.rawValue)")
    }

    /// One lane per device, the violation's own first, in order of appearance; and each op's device, so a
    /// completion is drawn back to the device that invoked it.
    private static func lanes(_ violation: Violation, _ events: [HistoryEvent], rows: [Int])
        -> (lanes: [String], deviceOf: [Int: String]) {
        var deviceOf: [Int: String] = [:]
        let last = violation.events.last.map { min($0, events.count - 1) } ?? -1
        if last >= 0 {
            for e in events[0...last] { if case .invoke(let inv) = e.body { deviceOf[inv.op] = inv.device } }
        }
        var lanes: [String] = []
        func lane(_ d: String) { if !lanes.contains(d) { lanes.append(d) } }
        violation.devices.forEach(lane)
        for i in rows {
            switch events[i].body {
            case .invoke(let inv): lane(inv.device)
            case .complete(let c): if let d = deviceOf[c.op] { lane(d) }
            case .push(let p): lane(p.device)
            case .final(let f): lane(f.device)
            case .sip(let m): lane(m.device)
            case .dialog(let d): lane(d.device)
            case .media(let m): lane(m.device)
            case .stop, .targetKilled: break
            }
        }
        return (lanes, deviceOf)
    }

    /// The violation's events, and the lines between its first and last that name its conversations or ops.
    static func selectRows(_ v: Violation, _ events: [HistoryEvent]) -> [Int] {
        let own = v.events.filter { events.indices.contains($0) }
        guard let first = own.first, let last = own.last else { return [] }
        let convs = Set(v.conversations), opSet = Set(v.ops)
        var related: [Int] = []
        for i in first...last where !own.contains(i) {
            let hit: Bool
            switch events[i].body {
            case .invoke(let inv):
                hit = opSet.contains(inv.op) || inv.touched.contains(where: convs.contains)
            case .complete(let c):
                hit = opSet.contains(c.op) || [c.view?.id, c.split?.id, c.conversation].contains { $0.map(convs.contains) ?? false }
            case .push(let p):
                hit = [p.conversation, p.into, p.view?.id].contains { $0.map(convs.contains) ?? false }
            case .final(let f):
                hit = convs.contains(f.conversation)
            case .sip(let m):
                hit = convs.contains(m.conversation)
            case .dialog(let d):
                hit = convs.contains(d.conversation)
            case .media(let m):
                hit = convs.contains(m.conversation)
            case .stop:
                hit = false
            case .targetKilled:
                hit = true
            }
            if hit { related.append(i) }
        }
        let room = max(0, maximumRows - own.count)
        // Keep the related lines nearest the breaking event when there are too many.
        return (own + related.suffix(room)).sorted()
    }

    static func describe(_ v: ConversationView) -> String {
        let members = v.members.map { "\($0.device):\($0.state)" }.joined(separator: " ")
        return "\(v.id) v\(v.version)\(v.ended ? " ended" : "") [\(members)]"
    }

    static func milliseconds(_ t: UInt64) -> String {
        let us = t / 1_000
        let frac = us % 1_000
        return "\(us / 1_000).\(frac < 10 ? "00" : frac < 100 ? "0" : "")\(frac) ms"
    }
}
