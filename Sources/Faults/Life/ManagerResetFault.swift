/// `device: { manager_reset: 5% }`: the system resets the app's conversation manager (as CallKit's provider
/// reset does) in that share of the window's connected call parts: every conversation of the device ends locally,
/// and the device tells its server of each end (reason `manager_reset`; over SIP a BYE on every dialog).
public struct ManagerResetFault: LifeFault {
    public static let names = ["manager_reset"]
    public static let family = FaultFamily.device
    public static let precedence = 1
    public static let moment = LifeMoment.connected
    public static let stream = DrawStream("device.manager_reset")
    public let probability: Double

    public init?(window: FaultWindow) {
        guard let life = window.device?.life, life.managerReset > 0 else { return nil }
        probability = life.managerReset
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let life = window.device?.life, life.managerReset > 0 else { return nil }
        return "manager_reset \(FaultDescription.percent(life.managerReset))"
    }

    public func decide(_ draws: FaultDraws) -> LifeEvent? {
        draws.hits(probability, Self.stream) ? .managerReset : nil
    }
}
