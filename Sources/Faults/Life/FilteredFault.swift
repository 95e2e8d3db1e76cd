/// `device: { filtered: 10% }`: Do Not Disturb or a block list refuses that share of the window's incoming call
/// parts as they ring: the app reports the call, the system refuses it, nothing rings, and the app ends it at
/// once and tells its server (a decline with reason `filtered`; over SIP a 486 or 603, `device.filtered_status`).
public struct FilteredFault: LifeFault {
    public static let names = ["filtered"]
    public static let family = FaultFamily.device
    public static let precedence = 3
    public static let moment = LifeMoment.ringing
    public static let stream = DrawStream("device.filtered")
    public let probability: Double

    public init?(window: FaultWindow) {
        guard let life = window.device?.life, life.filtered > 0 else { return nil }
        probability = life.filtered
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let life = window.device?.life, life.filtered > 0 else { return nil }
        return "filtered \(FaultDescription.percent(life.filtered))"
    }

    public func decide(_ draws: FaultDraws) -> LifeEvent? {
        draws.hits(probability, Self.stream) ? .filtered : nil
    }
}
