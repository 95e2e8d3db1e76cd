import Media
import TextEscaping

/// The relay's own per-call counts (rtpengine's ng `query`) beside callstorm's (`MediaLegTally`, one per end of
/// each call), per call and direction (docs/MEDIA.md, "The relay's counts beside callstorm's").
///
/// For the direction X → Y: X sent `sent`, the relay received `relayReceived` from X's party and forwarded them
/// to the address it holds for Y's party, and Y counted `received`. They agree when
/// |sent − relayReceived| ≤ tolerance and |relayReceived − received| ≤ tolerance, the tolerance being
/// `X.lastWindowPackets` (what X sent in the last 100 ms before its stream stopped: the packets that may still have
/// been on their way when the call ended) + `Y.stallPackets` (what may have sat unread in Y's socket while its
/// loop was late, 0 when it kept up). rtpengine 10.5 counts only what it received, per party: what it
/// forwarded to Y is what it received from X, so a relay that sends X's audio to the wrong place shows as
/// relayed but not received.
public struct RelayComparison: Sendable, Equatable {
    /// One direction of one call.
    public struct Row: Sendable, Equatable {
        public var call: Int
        public var callID: String
        /// The sending end is the caller (`caller_to_callee`), else the callee.
        public var fromCaller: Bool
        public var sent: Int
        /// What the relay received from the sender's party; nil when the relay holds no such party.
        public var relayReceived: Int?
        /// Where the relay sends this direction's packets (the receiving party's address as it learned it).
        public var relayForwardsTo: RTPEngineEndpoint?
        /// What the receiving end counted; nil when callstorm had no stream at that end.
        public var received: Int?
        public var tolerance: Int
        public var agrees: Bool

        public var direction: String { fromCaller ? "caller_to_callee" : "callee_to_caller" }
    }

    public private(set) var rows: [Row] = []
    /// Calls with a stream that sent and a record at the relay, or a stream that sent and none (a mismatch).
    public private(set) var callsCompared = 0
    /// The calls where some direction disagrees, by call number.
    public private(set) var mismatchedCalls: [Int] = []

    /// Compares `legs` with the relay's `calls` (by Call-ID). A call none of whose ends sent anything is left out.
    public init(legs: [MediaLegTally], relay calls: [String: RTPEngineCall]) {
        let byCall = Dictionary(grouping: legs, by: \.callID)
        let ordered = byCall.sorted { ($0.value[0].call, $0.key) < ($1.value[0].call, $1.key) }
        for (callID, ends) in ordered {
            guard ends.contains(where: { $0.sent > 0 }) else { continue }
            let caller = ends.first(where: \.caller)
            let callee = ends.first(where: { !$0.caller })
            let parties = Self.parties(caller: caller, callee: callee, in: calls[callID])
            var agreed = true
            for (from, to, fromTag, toTag) in [(caller, callee, parties.caller, parties.callee),
                                               (callee, caller, parties.callee, parties.caller)] {
                guard let from else { continue }
                let row = Self.row(from: from, to: to, fromTag: fromTag, toTag: toTag)
                agreed = agreed && row.agrees
                rows.append(row)
            }
            callsCompared += 1
            if !agreed { mismatchedCalls.append(ends[0].call) }
        }
    }

    private static func row(from: MediaLegTally, to: MediaLegTally?, fromTag: RTPEngineTag?,
                            toTag: RTPEngineTag?) -> Row {
        let relayed = fromTag?.sentRTP.packets
        let tolerance = from.lastWindowPackets + (to?.stallPackets ?? 0)
        var agrees = abs(from.sent - (relayed ?? 0)) <= tolerance
        if let to { agrees = agrees && abs((relayed ?? 0) - to.received) <= tolerance }
        return Row(call: from.call, callID: from.callID, fromCaller: from.caller, sent: from.sent,
                   relayReceived: relayed, relayForwardsTo: toTag?.learnedRTP.first, received: to?.received,
                   tolerance: tolerance, agrees: agrees)
    }

    /// The relay's parties for the two ends: the one whose RTP stream is bound to (or was told of) the end's own
    /// port, and the other of two parties when only one end is found that way (a party whose SDP address the
    /// server replaced still keeps its port, but a party the relay never saw an answer from has none).
    static func parties(caller: MediaLegTally?, callee: MediaLegTally?,
                        in call: RTPEngineCall?) -> (caller: RTPEngineTag?, callee: RTPEngineTag?) {
        guard let call else { return (nil, nil) }
        func party(_ leg: MediaLegTally?) -> RTPEngineTag? {
            guard let leg else { return nil }
            return call.tags.first { $0.rtpPorts.contains(leg.localPort) }
        }
        var found = (party(caller), party(callee))
        if call.tags.count == 2 {
            if found.0 == nil, let other = found.1 { found.0 = call.tags.first { $0.tag != other.tag } }
            if found.1 == nil, let other = found.0 { found.1 = call.tags.first { $0.tag != other.tag } }
        }
        return found
    }

    // MARK: - Words and files

    /// media-relay.csv: one row per call and direction.
    public var csv: String {
        var lines = ["call,call_id,direction,callstorm_sent,relay_received,relay_forwards_to,callstorm_received,"
            + "tolerance,agree"]
        for row in rows {
            lines.append([String(row.call), CSVText.field(row.callID), row.direction, String(row.sent),
                          row.relayReceived.map(String.init) ?? "", row.relayForwardsTo?.description ?? "",
                          row.received.map(String.init) ?? "", String(row.tolerance),
                          row.agrees ? "yes" : "no"].joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A line for each disagreeing direction, naming the call, at most `limit`.
    public func notes(limit: Int = 20) -> [String] {
        rows.filter { !$0.agrees }.prefix(limit).map { row in
            let relay = row.relayReceived.map { "the relay received \($0)" } ?? "the relay holds no such party"
            let forwards = row.relayForwardsTo.map { " and sends them to \($0)" } ?? ""
            let heard = row.received.map { ", the far end counted \($0)" } ?? ""
            let direction = row.direction.replacingOccurrences(of: "_", with: " ")
            return "media relay: call \(row.call) (\(row.callID)) \(direction): callstorm sent \(row.sent), "
                + "\(relay)\(forwards)\(heard) (tolerance \(row.tolerance))"
        }
    }
}
