import TextEscaping

/// One finished action, as a row of actions.csv. Times are nanoseconds since the run's origin.
public struct ActionRow: Sendable, Equatable {
    public var id: UInt64
    public var kind: String
    /// The flow step that issued it (`incoming-1to1/answer`).
    public var step: String
    public var device: String
    public var conversation: String
    public var plannedNanos: UInt64
    public var startedNanos: UInt64
    public var finishedNanos: UInt64
    public var outcome: String
    public var reason: String

    public init(id: UInt64, kind: String, step: String, device: String, conversation: String, plannedNanos: UInt64,
                startedNanos: UInt64, finishedNanos: UInt64, outcome: String, reason: String) {
        self.id = id
        self.kind = kind
        self.step = step
        self.device = device
        self.conversation = conversation
        self.plannedNanos = plannedNanos
        self.startedNanos = startedNanos
        self.finishedNanos = finishedNanos
        self.outcome = outcome
        self.reason = reason
    }

    public static let header = RunBundle.Rows.actions.header

    /// The row appended to `out` as bytes (no String per row); text fields quoted as RFC 4180 says when they hold
    /// a comma, a quote or a line break (a foreign server's conversation id may).
    func appendCSV(to out: inout [UInt8]) {
        JSONText.appendInteger(id, to: &out)
        for text in [kind, step, device, conversation] { out.append(comma); appendCSVField(text, to: &out) }
        for nanos in [plannedNanos, startedNanos, finishedNanos] { out.append(comma); appendSeconds(nanos, to: &out) }
        out.append(comma); appendCSVField(outcome, to: &out)
        out.append(comma); appendCSVField(reason, to: &out)
        out.append(comma); appendMillis(finishedNanos &- startedNanos, to: &out)
    }

}

/// One push a device received, as a row of pushes.csv.
public struct PushRow: Sendable, Equatable {
    public var apnsID: String
    public var device: String
    public var pushType: String
    public var acceptedNanos: UInt64
    public var deliveredNanos: UInt64
    /// When the device reported the incoming conversation (VoIP pushes only).
    public var reportedNanos: UInt64?
    public var deadlineMissed: Bool

    public init(apnsID: String, device: String, pushType: String, acceptedNanos: UInt64, deliveredNanos: UInt64,
                reportedNanos: UInt64?, deadlineMissed: Bool) {
        self.apnsID = apnsID
        self.device = device
        self.pushType = pushType
        self.acceptedNanos = acceptedNanos
        self.deliveredNanos = deliveredNanos
        self.reportedNanos = reportedNanos
        self.deadlineMissed = deadlineMissed
    }

    public static let header = RunBundle.Rows.pushes.header

    /// The row appended to `out` as bytes, text fields quoted where RFC 4180 needs it.
    func appendCSV(to out: inout [UInt8]) {
        appendCSVField(apnsID, to: &out)
        out.append(comma); appendCSVField(device, to: &out)
        out.append(comma); appendCSVField(pushType, to: &out)
        out.append(comma); appendSeconds(acceptedNanos, to: &out)
        out.append(comma); appendSeconds(deliveredNanos, to: &out)
        out.append(comma); if let reportedNanos { appendSeconds(reportedNanos, to: &out) }
        out.append(comma); if let reportedNanos { appendMillis(reportedNanos &- acceptedNanos, to: &out) }
        out.append(comma); out.append(contentsOf: (deadlineMissed ? "true" : "false").utf8)
    }

}

private let comma = UInt8(ascii: ",")

private func appendCSVField(_ text: String, to out: inout [UInt8]) { CSVText.appendField(text, to: &out) }

/// Seconds with microsecond precision ("12.000345").
func appendSeconds(_ nanos: UInt64, to out: inout [UInt8]) {
    appendFixed(nanos / 1000, decimals: 6, to: &out)
}

/// Milliseconds with microsecond precision ("3.071").
func appendMillis(_ nanos: UInt64, to out: inout [UInt8]) {
    appendFixed(nanos / 1000, decimals: 3, to: &out)
}

/// `micros` ÷ 10^decimals, written with exactly `decimals` digits after the point.
private func appendFixed(_ micros: UInt64, decimals: Int, to out: inout [UInt8]) {
    var scale: UInt64 = 1
    for _ in 0..<decimals { scale *= 10 }
    JSONText.appendInteger(micros / scale, to: &out)
    out.append(UInt8(ascii: "."))
    var fraction = micros % scale
    var digits = [UInt8](repeating: UInt8(ascii: "0"), count: decimals)
    var i = decimals
    while i > 0 {
        i -= 1
        digits[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)
        fraction /= 10
    }
    out.append(contentsOf: digits)
}

