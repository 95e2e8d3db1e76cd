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

    var csv: String {
        "\(id),\(kind),\(step),\(device),\(conversation),\(seconds(plannedNanos)),\(seconds(startedNanos))," +
            "\(seconds(finishedNanos)),\(outcome),\(reason),\(millis(finishedNanos &- startedNanos))"
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

    var csv: String {
        let reported = reportedNanos.map(seconds) ?? ""
        let latency = reportedNanos.map { millis($0 &- acceptedNanos) } ?? ""
        return "\(apnsID),\(device),\(pushType),\(seconds(acceptedNanos)),\(seconds(deliveredNanos)),\(reported)," +
            "\(latency),\(deadlineMissed)"
    }
}

/// Seconds with microsecond precision, without Foundation's formatter on the hot path.
func seconds(_ nanos: UInt64) -> String {
    let micros = nanos / 1000
    let frac = String(micros % 1_000_000)
    return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - frac.count) + frac
}

func millis(_ nanos: UInt64) -> String {
    let micros = nanos / 1000
    let frac = String(micros % 1000)
    return "\(micros / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
}
