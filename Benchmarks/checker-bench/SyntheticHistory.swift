import Foundation

/// A correct history in the driver's format: each conversation has three devices of its own and goes through ten
/// operations (start, two joins, holds and resumes, two ends), with a push to another member after every change
/// and a final line per device. Conversations are interleaved 1,000 at a time, so the checker holds many live ones.
enum SyntheticHistory {
    static let inFlight = 1_000

    /// Writes the history; returns its size in bytes.
    static func write(conversations: Int, to url: URL) -> Int {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        guard let handle = try? FileHandle(forWritingTo: url) else { fatalError("cannot write \(url.path)") }
        defer { try? handle.close() }
        var buffer = ""
        buffer.reserveCapacity(1 << 22)
        var written = 0
        var t: UInt64 = 0
        var op = 0
        func flush(force: Bool = false) {
            guard force || buffer.utf8.count > 1 << 22 else { return }
            let data = Data(buffer.utf8)
            written += data.count
            handle.write(data)
            buffer.removeAll(keepingCapacity: true)
        }
        var first = 0
        while first < conversations {
            let block = first..<min(conversations, first + inFlight)
            for step in 0..<steps.count {
                for c in block {
                    t += 50
                    op += 1
                    emit(step: step, conversation: c, op: op, t: &t, into: &buffer)
                    flush()
                }
            }
            for c in block {
                let id = "c\(c)"
                let ended = view(id, 10, ["left", "left", "left"], c, ended: true)
                for k in 0..<3 {
                    t += 50
                    buffer += "{\"t\":\(t),\"type\":\"final\",\"device\":\"d\(c * 3 + k)\",\"conversation\":\"\(id)\","
                    buffer += "\"server\":\(ended),\"local\":{\"state\":\"left\",\"members\":[],\"active\":[]}}\n"
                }
                flush()
            }
            first = block.upperBound
        }
        t += 50
        buffer += "{\"t\":\(t),\"type\":\"stop\"}\n"
        flush(force: true)
        return written
    }

    /// (device index, kind, member states after it for devices 0, 1, 2, device index to push to)
    static let steps: [(Int, String, [String], Int)] = [
        (0, "start", ["joined", "ringing", "ringing"], 1),
        (1, "join", ["joined", "joined", "ringing"], 0),
        (2, "join", ["joined", "joined", "joined"], 0),
        (0, "pause", ["held", "joined", "joined"], 1),
        (0, "resume", ["joined", "joined", "joined"], 2),
        (1, "pause", ["joined", "held", "joined"], 0),
        (1, "resume", ["joined", "joined", "joined"], 2),
        (2, "end", ["joined", "joined", "left"], 0),
        (0, "pause", ["held", "joined", "left"], 1),
        (1, "end", ["left", "left", "left"], 0),
    ]

    static func emit(step: Int, conversation c: Int, op: Int, t: inout UInt64, into out: inout String) {
        let (who, kind, states, pushTo) = steps[step]
        let id = "c\(c)"
        let v = view(id, step + 1, states, c, ended: step == steps.count - 1)
        out += "{\"t\":\(t),\"type\":\"invoke\",\"op\":\(op),\"device\":\"d\(c * 3 + who)\",\"kind\":\"\(kind)\""
        out += step == 0 ? "}\n" : ",\"conversation\":\"\(id)\"}\n"
        t += 1_000
        out += "{\"t\":\(t),\"type\":\"complete\",\"op\":\(op),\"outcome\":\"ok\",\"conversation\":\"\(id)\","
        out += "\"view\":\(v)}\n"
        t += 200
        let event = step == 0 ? "voip" : step == steps.count - 1 ? "ended" : "updated"
        out += "{\"t\":\(t),\"type\":\"push\",\"device\":\"d\(c * 3 + pushTo)\",\"event\":\"\(event)\","
        out += "\"conversation\":\"\(id)\",\"view\":\(v)}\n"
    }

    /// The view as the reference target writes it, extra keys included, so the reader's skipping is measured too.
    static func view(_ id: String, _ version: Int, _ states: [String], _ c: Int, ended: Bool) -> String {
        var s = "{\"id\":\"\(id)\",\"state\":\"\(ended ? "left" : "joined")\",\"version\":\(version),"
        s += "\"video\":false,\"ended\":\(ended),\"capabilities\":[\"pausing\",\"merging\",\"unmerging\"],\"members\":["
        for k in 0..<3 {
            if k > 0 { s += "," }
            s += "{\"device\":\"d\(c * 3 + k)\",\"state\":\"\(states[k])\",\"handle\":{\"kind\":\"generic\","
            s += "\"value\":\"d\(c * 3 + k)\",\"displayName\":\"Device \(c * 3 + k)\"}}"
        }
        s += "],\"activeMembers\":[]}"
        return s
    }
}
