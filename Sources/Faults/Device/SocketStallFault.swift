import Quantities

/// `device: { socket_stall: 3s }` or `{ for: <distribution>, probability: 20% }`: that share of the window's
/// devices stops reading its signaling socket once, at an instant drawn per device, for a drawn time. The
/// server's frames queue in the kernel and arrive together when reading resumes (late events, late answers).
public struct SocketStallFault: SocketFault {
    public static let names = ["socket_stall"]
    public static let family = FaultFamily.device
    public static let precedence = 1
    public static let stream = DrawStream("device.socket_stall")
    public let probability: Double
    public let duration: Distribution
    public let roles: [String]

    public static let stalled = "device.socket_stalled"

    public init?(window: FaultWindow) {
        guard let stall = window.device?.socketStall, stall.probability > 0 else { return nil }
        probability = stall.probability
        duration = stall.duration
        roles = stall.roles
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let stall = window.device?.socketStall else { return nil }
        let share = stall.probability < 1 ? " on \(FaultDescription.percent(stall.probability))" : ""
        return "socket_stall \(stall.duration)" + share
    }

    public func decide(_ draws: FaultDraws, at instant: UInt64) -> SocketFaultEvent? {
        guard draws.hitsDevice(probability, Self.stream) else { return nil }
        // Decision 2: 0 is whether it hits and 1 its instant.
        let nanos = draws.sample(duration, Self.stream, seq: 2)
        guard nanos > 0 else { return nil }
        return SocketFaultEvent(atNanos: instant, window: draws.window, action: .stall(nanos: nanos),
                                note: draws.note(Self.stalled), roles: roles)
    }
}
