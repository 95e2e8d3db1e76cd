/// The SIP kind's timers on the worker's wheel, carried as `SignalingTimer` values.
enum SIPSignalingTimer: Equatable {
    /// An action sent over SIP got no answer within `action_timeout` (its leg key and action slot).
    case action(key: LegKey, slot: Int)
    /// A sleeping SIP device's wake REGISTER, put off by its app's `wake_after` or a late-wake fault
    /// (`SIPSignaling+Wake`), for the push of `callID`: stale once the device woke for another call since.
    case wake(local: Int, callID: String)
    /// A callee's audio session is up (`device.audio_session`, `SIPSignaling+MediaJoin`): its first packet goes.
    case audioSession(local: Int, callID: String)

    /// Which timer a `SignalingTimer.code` names: one table for writing and reading it back.
    enum Code: Int {
        case action
        case wake
        case audioSession
    }

    init?(_ timer: SignalingTimer) {
        switch Code(rawValue: timer.code) {
        case .action?: self = .action(key: LegKey(local: timer.device, callID: timer.text), slot: Int(timer.number))
        case .wake?: self = .wake(local: timer.device, callID: timer.text)
        case .audioSession?: self = .audioSession(local: timer.device, callID: timer.text)
        case nil: return nil
        }
    }

    /// As the wheel holds it, for the kind in `slot`.
    func timer(slot kind: Int) -> SignalingTimer {
        switch self {
        case .action(let key, let slot):
            return SignalingTimer(slot: kind, code: Code.action.rawValue, device: key.local, number: UInt64(slot),
                                  text: key.callID)
        case .wake(let local, let callID):
            return SignalingTimer(slot: kind, code: Code.wake.rawValue, device: local, text: callID)
        case .audioSession(let local, let callID):
            return SignalingTimer(slot: kind, code: Code.audioSession.rawValue, device: local, text: callID)
        }
    }
}
