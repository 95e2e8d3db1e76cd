/// The socket kind's timers on the worker's wheel, carried as `SignalingTimer` values: a socket's reconnect or
/// linger (`SocketLifecycle`), an action's reply deadline (its request id), and the socket faults' (`SocketFaultPlan`).
enum SocketSignalingTimer: Equatable {
    case lifecycle(SocketTimer)
    /// An action sent over a socket got no reply within `action_timeout` (its request id).
    case reply(String)
    /// A socket fault is due, or a stalled socket reads again.
    case fault(SocketFaultTimer)

    init?(_ timer: SignalingTimer) {
        switch timer.code {
        case 0: self = .lifecycle(.reconnect(device: timer.device, token: timer.number))
        case 1: self = .lifecycle(.linger(device: timer.device, token: timer.number))
        case 2: self = .reply(timer.text)
        case 3: self = .fault(.due)
        case 4: self = .fault(.resume(socket: timer.number))
        default: return nil
        }
    }

    /// As the wheel holds it, for the kind in `slot`.
    func timer(slot: Int) -> SignalingTimer {
        switch self {
        case .lifecycle(.reconnect(let device, let token)):
            return SignalingTimer(slot: slot, code: 0, device: device, number: token)
        case .lifecycle(.linger(let device, let token)):
            return SignalingTimer(slot: slot, code: 1, device: device, number: token)
        case .reply(let id): return SignalingTimer(slot: slot, code: 2, text: id)
        case .fault(.due): return SignalingTimer(slot: slot, code: 3)
        case .fault(.resume(let socket)): return SignalingTimer(slot: slot, code: 4, number: socket)
        }
    }
}
