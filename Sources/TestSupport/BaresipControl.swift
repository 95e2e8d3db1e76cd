import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One connection to baresip's `ctrl_tcp` module: commands go as netstrings holding JSON
/// (`{"command":"dial","params":"sip:…","token":"…"}`), answers and call events come back the same way.
///
/// baresip 1.0.0 reports a call's own packet counts in one place a client can read while the call runs:
/// `audio_debug` (the menu module), whose RTP part reads `TX: packets=N` (sent) and, per far-end source,
/// `rcvd=M` (received), counted as packets go and come, whether or not the far end sends RTCP. rtcpsummary's
/// line at the call's end (`PS=`/`PR=`) is taken from the last RTCP sender report the far end sent, so against a
/// peer that sends none (callstorm's streams send no RTCP yet) it prints `ERROR=No RTCP stats collected`; hence
/// `watchCall` polls `audio_debug` and keeps the last reading before the call closed.
public final class BaresipControl {
    /// A call's packet counts as baresip itself counted them.
    public struct Counts: Equatable, CustomStringConvertible {
        public var sent: Int
        public var received: Int
        public var description: String { "baresip sent \(sent), received \(received)" }
    }

    private let socket: LoopbackSocket
    private var buffer: [UInt8] = []
    private var token = 0
    /// Every event baresip sent on this connection (`CALL_ESTABLISHED`, `CALL_CLOSED`, …), in order.
    public private(set) var events: [String] = []

    public init(port: Int) throws {
        socket = try LoopbackSocket(port: port, receiveTimeoutMillis: 2_000, noDelay: true)
    }

    /// Sends `command` and returns its answer: whether baresip did it and what it printed.
    public func send(_ command: String, _ params: String = "") throws -> (ok: Bool, data: String) {
        token += 1
        let body = try JSONSerialization.data(withJSONObject: ["command": command, "params": params,
                                                                "token": "t\(token)"])
        try socket.send(Array("\(body.count):".utf8) + Array(body) + Array(",".utf8))
        while true {
            guard let message = try nextMessage() else {
                throw BaresipProcess.Failure.control("no answer to \(command)")
            }
            if message["response"] as? Bool == true {
                return (message["ok"] as? Bool ?? false, message["data"] as? String ?? "")
            }
            if message["event"] as? Bool == true { events.append(message["type"] as? String ?? "?") }
        }
    }

    /// Reads `audio_debug` every `interval` seconds until a call has run and closed (or `seconds` passed), and
    /// returns the call's last counts read: from within `interval` of its end.
    public func watchCall(seconds: Double = 60, interval: Double = 0.02) throws -> Counts {
        var last: Counts?
        let calls = eventually(seconds, every: interval) {
            guard let answer = try? send("audio_debug"), answer.ok, let counts = Self.counts(answer.data) else {
                return last != nil
            }
            last = counts
            return events.contains("CALL_CLOSED")
        }
        guard calls, let last else { throw BaresipProcess.Failure.control("no call ran and closed: \(events)") }
        return last
    }

    /// The counts in `audio_debug`'s text: `TX: packets=N` and the sum of every source's `rcvd=M`.
    static func counts(_ text: String) -> Counts? {
        func numbers(after key: String) -> [Int] {
            text.components(separatedBy: key).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        }
        guard let sent = numbers(after: "TX: packets=").first else { return nil }
        return Counts(sent: sent, received: numbers(after: "rcvd=").reduce(0, +))
    }

    /// The next netstring's JSON object, reading more when the buffer holds none whole; nil at a timeout or EOF.
    private func nextMessage() throws -> [String: Any]? {
        while true {
            if let colon = buffer.firstIndex(of: UInt8(ascii: ":")),
               let length = Int(String(decoding: buffer[..<colon], as: UTF8.self)),
               buffer.count >= colon + 1 + length + 1 {
                let body = Data(buffer[(colon + 1)..<(colon + 1 + length)])
                buffer.removeFirst(colon + 1 + length + 1)
                return try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
            }
            guard case .data(let chunk) = socket.receive() else { return nil }
            buffer += chunk
        }
    }
}
