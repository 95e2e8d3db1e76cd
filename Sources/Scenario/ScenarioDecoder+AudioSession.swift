/// `device.join_at: media` and `device.audio_session` (docs/MEDIA.md, "When a join is fulfilled"): both are about
/// the calls' RTP, so both need a `media:` section; each is reported where it is written without one.
extension ScenarioDecoder {
    mutating func checkAudioSession(_ root: YAMLNode, _ scenario: Scenario) {
        guard let sip = scenario.device.sip, scenario.media == nil,
              let device = Self.topLevelValue(root, "device") else { return }
        if sip.joinAt == .media, let node = Self.topLevelValue(device, "join_at") {
            report(node.mark, "'device.join_at: media' fulfils a join when RTP flows both ways; the calls carry "
                + "none without a 'media:' section: add 'media: { share: 100% }' or use 'join_at: answer'")
        }
        if sip.audioSession != nil, let node = Self.topLevelValue(device, "audio_session") {
            report(node.mark, "'device.audio_session' delays the callee's first RTP packet; the calls carry none "
                + "without a 'media:' section: add 'media: { share: 100% }' or remove 'audio_session'")
        }
    }
}
