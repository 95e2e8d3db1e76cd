import Metrics

/// What a worker's parts hand back to the worker instead of reaching for one another: plain values the worker
/// applies (`Worker.apply(_:)`) at once and in order, as it applies a call's `FlowEffect`s. A part knows the worker
/// only through `EffectHost`; it holds no reference to a sibling, so a signaling kind added beside the others
/// changes none of them.
enum WorkerEffect {
    /// Put `event` on the worker's wheel (and point the loop's timer at the wheel again).
    case schedule(TimerEvent, at: UInt64)
    /// An action's answer reaches its call (`FlowInterpreter.answered`).
    case answer(ActionRequest, ActionAnswer, now: UInt64)
    /// A call reaches `device` and rings: reported to the system as a VoIP push is (`PushIntake.reportIncoming`).
    case ring(device: Int, PushPayload, conversation: String, acceptedNanos: UInt64, now: UInt64)
    /// A change in a conversation heard on `channel`, folded into the device's view (`PushIntake.observe`); `call`:
    /// the call it is about when the signaling knows (a device may run a waiting call beside its own).
    case observe(PushPayload?, device: Int, channel: Metric.ObservationChannel, call: Int?, now: UInt64)
    /// A call nobody planned reached `device`, in no call: an outside-started call takes it when the scenario
    /// expects such calls (`CallLauncher.takeOutsideCall`). Whether one did is the device's `callID` after.
    case takeOutside(device: Int, conversation: String, now: UInt64)
    /// A call reached `device` while it is in another (call waiting, `CallLauncher.takeWaitingCall`). Whether it
    /// was taken is the device's `waitingCall` after.
    case takeWaiting(device: Int, conversation: String, now: UInt64)
}

/// The worker as its parts see it: where their effects go, and the one door to a call. Parts hold it `unowned`,
/// given when they are made; the worker outlives them.
///
/// Ownership rule: called only on the worker's loop.
protocol EffectHost: AnyObject {
    func apply(_ effect: WorkerEffect)
    /// Hands call `id` an observation and applies the effects it returns. False when the call is over.
    @discardableResult
    func tell(_ id: Int, now: UInt64, _ observe: (inout FlowInterpreter, inout FlowContext) -> [FlowEffect]) -> Bool
    /// Puts `event` on the wheel as `.schedule` does, and hands back its ticket for `cancel`.
    func scheduleCancellable(_ event: TimerEvent, at nanos: UInt64) -> TimerTicket
    /// Takes a timer off the wheel before it fires (nothing when it fired already): for a timer whose work is done,
    /// which would otherwise fire only to find so.
    func cancel(_ ticket: TimerTicket)
}

/// A timer on the worker's wheel, for `EffectHost.cancel`.
typealias TimerTicket = TimerWheel<TimerEvent>.Ticket

extension EffectHost {
    func schedule(_ event: TimerEvent, at nanos: UInt64) { apply(.schedule(event, at: nanos)) }
}
