/// The socket kind's timers on the worker's wheel, carried as `SignalingTimer` values: a socket's reconnect or
/// linger (`SocketLifecycle`), an action's reply deadline (its request id), and the socket faults' (`SocketFaultPlan`).
enum SocketSignalingTimer: Equatable {
    case lifecycle(SocketTimer)
    /// An action sent over a socket got no reply within `action_timeout` (its request id).
    case reply(String)
    /// A socket fault is due, or a stalled socket reads again.
    case fault(SocketFaultTimer)

    /// Which timer a `SignalingTimer.code` names: one table for writing and reading it back.
    enum Code: Int {
        case reconnect
        case linger
        case reply
        case faultDue
        case faultResume
    }

    init?(_ timer: SignalingTimer) {
        switch Code(rawValue: timer.code) {
        case .reconnect?: self = .lifecycle(.reconnect(device: timer.device, token: timer.number))
        case .linger?: self = .lifecycle(.linger(device: timer.device, token: timer.number))
        case .reply?: self = .reply(timer.text)
        case .faultDue?: self = .fault(.due)
        case .faultResume?: self = .fault(.resume(socket: timer.number))
        case nil: return nil
        }
    }

    /// As the wheel holds it, for the kind in `slot`.
    func timer(slot: Int) -> SignalingTimer {
        switch self {
        case .lifecycle(.reconnect(let device, let token)):
            return SignalingTimer(slot: slot, code: Code.reconnect.rawValue, device: device, number: token)
        case .lifecycle(.linger(let device, let token)):
            return SignalingTimer(slot: slot, code: Code.linger.rawValue, device: device, number: token)
        case .reply(let id): return SignalingTimer(slot: slot, code: Code.reply.rawValue, text: id)
        case .fault(.due): return SignalingTimer(slot: slot, code: Code.faultDue.rawValue)
        case .fault(.resume(let socket)):
            return SignalingTimer(slot: slot, code: Code.faultResume.rawValue, number: socket)
        }
    }
}
