/// The SIP kind's timers on the worker's wheel, carried as `SignalingTimer` values.
enum SIPSignalingTimer: Equatable {
    /// An action sent over SIP got no answer within `action_timeout` (its leg key and action slot).
    case action(key: LegKey, slot: Int)
    /// A sleeping SIP device's wake REGISTER, put off by its app's `wake_after` or a late-wake fault
    /// (`SIPSignaling+Wake`), for the push of `callID`: stale once the device woke for another call since.
    case wake(local: Int, callID: String)

    init?(_ timer: SignalingTimer) {
        switch timer.code {
        case 0: self = .action(key: LegKey(local: timer.device, callID: timer.text), slot: Int(timer.number))
        case 1: self = .wake(local: timer.device, callID: timer.text)
        default: return nil
        }
    }

    /// As the wheel holds it, for the kind in `slot`.
    func timer(slot kind: Int) -> SignalingTimer {
        switch self {
        case .action(let key, let slot):
            return SignalingTimer(slot: kind, code: 0, device: key.local, number: UInt64(slot), text: key.callID)
        case .wake(let local, let callID): return SignalingTimer(slot: kind, code: 1, device: local, text: callID)
        }
    }
}
