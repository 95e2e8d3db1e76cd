/// `device: { interrupted: 10%, interrupted_action: hold|end|either }`: another call (cellular, another app)
/// interrupts that share of the window's connected call parts: the system holds or ends the app's conversation
/// and the device tells its server unasked (a hold, an end with reason `interrupted`; over SIP a re-INVITE
/// holding the media or a BYE). `either` draws hold or end per part from the seed.
public struct InterruptedFault: LifeFault {
    public static let names = ["interrupted"]
    public static let family = FaultFamily.device
    public static let precedence = 0
    public static let moment = LifeMoment.connected
    public static let stream = DrawStream("device.interrupted")
    public let probability: Double
    public let interruption: Interruption

    public init?(window: FaultWindow) {
        guard let life = window.device?.life, life.interrupted > 0 else { return nil }
        probability = life.interrupted
        interruption = life.interruption
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let life = window.device?.life, life.interrupted > 0 else { return nil }
        return "interrupted \(FaultDescription.percent(life.interrupted)) (\(life.interruption.rawValue))"
    }

    public func decide(_ draws: FaultDraws) -> LifeEvent? {
        guard draws.hits(probability, Self.stream) else { return nil }
        switch interruption {
        case .hold: return .interrupted(hold: true)
        case .end: return .interrupted(hold: false)
        case .either:
            return .interrupted(hold: draws.schedule.draw(draws.window, draws.subject, 1, Self.stream) < 0.5)
        }
    }
}
