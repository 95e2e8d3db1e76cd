/// The `device:` keys that say how the simulated app answers what a server sends it (docs/LCK.md).
extension ScenarioDecoder {
    /// `on_voip_without_call: report_and_end | terminate`.
    mutating func deviceApp(_ fields: Fields, into profile: inout DeviceProfile) {
        if let node = fields["on_voip_without_call"],
           let word = word(node, "on_voip_without_call", among: VoIPWithoutCall.allCases.map(\.rawValue)) {
            profile.onVoIPWithoutCall = VoIPWithoutCall(rawValue: word) ?? .reportAndEnd
        }
    }
}
