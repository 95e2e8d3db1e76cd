import Faults

/// The phone's life events in a window's `device:` section (issue 37): `interrupted`, `manager_reset`,
/// `relaunch`, `filtered` (shares of call parts), `interrupted_action` and `life_after`.
extension ScenarioDecoder {
    mutating func lifeFaults(_ f: Fields) -> PhoneLifeFaults {
        var life = PhoneLifeFaults()
        if let n = f["interrupted"], let v = fraction(n, "interrupted") { life.interrupted = v }
        if let n = f["interrupted_action"],
           let w = word(n, "interrupted_action", among: Interruption.allCases.map(\.rawValue)) {
            life.interruption = Interruption(rawValue: w) ?? .either
        }
        if let n = f["manager_reset"], let v = fraction(n, "manager_reset") { life.managerReset = v }
        if let n = f["relaunch"], let v = fraction(n, "relaunch") { life.relaunch = v }
        if let n = f["filtered"], let v = fraction(n, "filtered") { life.filtered = v }
        if let n = f["life_after"] { life.after = distribution(n, "life_after") }
        return life
    }
}

/// The life events as flow steps and the app's choices for them in `device:`.
extension ScenarioDecoder {
    static let lifeDeviceKeys = ["relaunch", "filtered_status"]

    /// `{ role: callee, do: interrupted, then: hold|end|either }`, `do: manager_reset|relaunch|filtered`.
    mutating func lifeStep(_ action: String, fields: Fields, conversation: String) -> FlowStep.Kind? {
        guard let kind = LifeEventKind(rawValue: action) else { return nil }
        var interruption = Interruption.either
        if let node = fields["then"] {
            guard let w = word(node, "then", among: Interruption.allCases.map(\.rawValue)) else { return nil }
            interruption = Interruption(rawValue: w) ?? .either
        }
        return .life(LifeStep(kind: kind, interruption: interruption, conversation: conversation))
    }

    /// `relaunch: end | rejoin | end_on_event`, `filtered_status: 486 | 603`.
    mutating func deviceLife(_ fields: Fields, into profile: inout DeviceProfile) {
        if let node = fields["relaunch"],
           let w = word(node, "relaunch", among: RelaunchReconcile.allCases.map(\.rawValue)) {
            profile.life.relaunch = RelaunchReconcile(rawValue: w) ?? .end
        }
        if let node = fields["filtered_status"], let w = word(node, "filtered_status", among: ["486", "603"]) {
            profile.life.filteredStatus = Int(w) ?? 603
        }
    }
}
