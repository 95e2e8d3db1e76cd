import Foundation
import Locking
import TextEscaping

/// `callstorm run --trace N`: every request, response and push of the first N planned calls, one JSON line each
/// in trace.jsonl, so a user can see what their mapping sent and what their server answered. Shared by the
/// workers (a lock around one file); untraced calls cost one comparison.
public final class TraceWriter: Sendable {
    /// Calls with a planned index below this are traced.
    public let calls: Int
    private let file: Mutex<FileHandle?>

    public init(calls: Int, url: URL) throws {
        self.calls = calls
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        file = Mutex(try FileHandle(forWritingTo: url))
    }

    func traces(_ call: Int?) -> Bool { call.map { $0 < calls } ?? false }

    /// One request and its answer (`status` 0 and `error` for a transport failure).
    func exchange(call: Int, device: String, op: String, method: String, url: String, body: String, status: Int,
                  response: [UInt8], error: String?, t: UInt64) {
        var line = "{\"t\":\(t),\"call\":\(call),\"device\":\(JSONText.quote(device)),\"type\":\"request\","
        line += "\"op\":\(JSONText.quote(op)),\"method\":\(JSONText.quote(method)),\"url\":\(JSONText.quote(url)),"
        line += "\"body\":\(JSONText.quote(body)),\"status\":\(status),"
        line += "\"response\":\(JSONText.quote(String(decoding: response, as: UTF8.self)))"
        if let error { line += ",\"error\":\(JSONText.quote(error))" }
        write(line + "}")
    }

    func push(call: Int, device: String, pushType: String, payload: [UInt8], t: UInt64) {
        write("{\"t\":\(t),\"call\":\(call),\"device\":\(JSONText.quote(device)),\"type\":\"push\","
              + "\"push_type\":\(JSONText.quote(pushType)),"
              + "\"payload\":\(JSONText.quote(String(decoding: payload, as: UTF8.self)))}")
    }

    private func write(_ line: String) {
        file.withLock { $0?.write(Data((line + "\n").utf8)) }
    }

    public func close() {
        file.withLock { handle in
            try? handle?.close()
            handle = nil
        }
    }
}
