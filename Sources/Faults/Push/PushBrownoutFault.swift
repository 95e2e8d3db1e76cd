/// `push: { brownout: refuse | stall }`: for the whole window the gateway refuses every push of the devices it
/// covers (503) or stalls (takes the stream and answers nothing until the window ends). Decided by the clock,
/// not by a call's planned time: the gateway itself is down, so it needs no draw.
public struct PushBrownoutFault: Fault {
    public static let names = ["brownout"]
    public static let family = FaultFamily.push
    public let probability = 1.0
    public let mode: PushFaults.Brownout

    public init?(window: FaultWindow) {
        guard let mode = window.push?.brownout else { return nil }
        self.mode = mode
    }

    public static func summary(of window: FaultWindow) -> String? {
        window.push?.brownout.map { "brownout (\($0.rawValue))" }
    }

    /// What the gateway does with a request for a device of a call in `flow` (nil when between calls).
    public enum Answer: Sendable, Equatable {
        case refuse
        case stall(forNanos: UInt64)
    }

    /// The `faults.csv` kind of this brownout's answers.
    public var kind: String { mode == .refuse ? "push.brownout_refused" : "push.brownout_stalled" }
}

extension FaultSchedule {
    /// Whether any window browns the gateway out (the gateway asks on every request; most runs have none).
    public var hasBrownout: Bool { windows.contains { $0.push?.brownout != nil } }

    /// The brownout open at `sinceLoad` for `device` (in a call of `flow`, nil between calls), with its note.
    public func brownout(at sinceLoad: UInt64, device: Int, flow: String?)
        -> (answer: PushBrownoutFault.Answer, note: FaultNote)? {
        for (_, window) in active(at: sinceLoad, device: device) {
            guard let fault = PushBrownoutFault(window: window) else { continue }
            if !window.flows.isEmpty, !(flow.map { window.flows.contains($0) } ?? false) { continue }
            let answer: PushBrownoutFault.Answer = fault.mode == .refuse
                ? .refuse : .stall(forNanos: window.endNanos - sinceLoad)
            return (answer, FaultNote(window: window.name, kind: fault.kind))
        }
        return nil
    }
}
