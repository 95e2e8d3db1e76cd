/// `device: { relaunch: 5% }`: the app is terminated and relaunched in that share of the window's connected call
/// parts while the server still holds its calls: it registers again and reconciles (`device.relaunch: end` ends
/// them, `rejoin` keeps those the server still holds it in). A SIP device loses its dialogs with the process: it
/// re-REGISTERs and answers in-dialog requests for them with 481.
public struct RelaunchFault: LifeFault {
    public static let names = ["relaunch"]
    public static let family = FaultFamily.device
    public static let precedence = 2
    public static let moment = LifeMoment.connected
    public static let stream = DrawStream("device.relaunch")
    public let probability: Double

    public init?(window: FaultWindow) {
        guard let life = window.device?.life, life.relaunch > 0 else { return nil }
        probability = life.relaunch
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let life = window.device?.life, life.relaunch > 0 else { return nil }
        return "relaunch \(FaultDescription.percent(life.relaunch))"
    }

    public func decide(_ draws: FaultDraws) -> LifeEvent? {
        draws.hits(probability, Self.stream) ? .relaunch : nil
    }
}
