import Metrics

/// What one device's signaling does, whatever carries it: HTTP requests (`HTTPSignaling`), HTTP with a device
/// socket beside it (`DeviceSockets`), or a SIP user agent (`SIPSignaling`). A worker makes each kind its devices
/// use once (`SignalingRegistry`) and picks one per device (`DeviceSignalings`), so a user's devices may differ.
/// What a kind hears (a call ringing, a change, an action's answer, a timer of its own) goes back to the worker
/// as `WorkerEffect`s; the worker calls the kind for a device's registration, its actions, its timers and the
/// app's moments. Media will be a seam of its own beside this one, hearing the same moments; it is no signaling kind.
///
/// Ownership rule: made, called and ended on the worker's loop; a kind's own I/O (a pool's events, an HTTP answer)
/// comes back there too.
protocol DeviceSignaling: AnyObject {
    /// This kind's part of a worker, or nil when none of the worker's devices signals this way (or the loop cannot
    /// carry it); the next kind in `SignalingRegistry.kinds` is asked. Called on the loop.
    static func make(_ parts: SignalingParts) -> Self?
    /// Whether the run may compare its devices' views with the target's after each call (`verifyViews`): a kind
    /// whose devices are in the run and whose calls the target holds as no viewable conversation says false.
    static func checksTargetViews(_ settings: DriverSettings) -> Bool
    /// The address every device is known by when this kind is in the run and names devices by address (a SIP
    /// address of record), else nil: devices take their handles from `device.handles`.
    static func handleAddress(_ settings: DriverSettings) -> HandleAddress?
    /// Whether device `local` (worker-local index) signals this way.
    func serves(_ local: Int) -> Bool
    /// Registers `local` with the target; `then` runs once the answer is in (whatever it was).
    func register(_ local: Int, then: @escaping () -> Void)
    /// Carries one action of a call out; its answer reaches the call as `WorkerEffect.answer`.
    func perform(_ request: ActionRequest)
    /// A timer this kind put on the wheel (`TimerEvent.signaling`) fired.
    func timerFired(_ timer: SignalingTimer, now: UInt64)
    /// Something the app did or saw on `local` that the signaling may act on.
    func moment(_ moment: AppMoment, device local: Int)
    /// Whether `local`'s app is in the foreground now (a VoIP push then does not launch it).
    func isForeground(_ local: Int) -> Bool
    /// The load starts: plan what is drawn per device for the run (socket faults).
    func loadStarts(at loadStart: UInt64)
    /// The once-a-second checkpoint: what this kind holds open now, as a stop would count it.
    func checkpoint(into snapshot: inout Recorder, now: UInt64)
    /// The run ends: fold the kind's own books into the recorder and close what it holds.
    func stop()
}

extension DeviceSignaling {
    static func checksTargetViews(_ settings: DriverSettings) -> Bool { true }
    static func handleAddress(_ settings: DriverSettings) -> HandleAddress? { nil }
    func timerFired(_ timer: SignalingTimer, now: UInt64) {}
    func moment(_ moment: AppMoment, device local: Int) {}
    func isForeground(_ local: Int) -> Bool { false }
    func loadStarts(at loadStart: UInt64) {}
    func checkpoint(into snapshot: inout Recorder, now: UInt64) {}
    func stop() {}
}

/// The app's moments a device's signaling hears from outside it: a call reported to the system (its VoIP push),
/// and the device left with no call. What a kind sees itself (its registration's answer, the user acting through
/// its `perform`) it handles in its own code.
enum AppMoment {
    case pushReported(conversation: String, acceptedNanos: UInt64)
    case idle
    /// The app was relaunched after a termination (a life event, issue 37): it registers again.
    case relaunched
}

/// A signaling kind's own timer on the worker's wheel: which kind (`slot`, its place in the worker's list) and a
/// value only that kind reads (`code` says which of its timers; `device`, `number` and `text` what it carries).
/// One shape for every kind, so a new kind adds no case to `TimerEvent`.
struct SignalingTimer {
    let slot: Int
    let code: Int
    var device = 0
    var number: UInt64 = 0
    var text = ""
}

/// What a signaling kind is made from: the worker's shared state and the doors it may use. `slot` is the kind's
/// place in the worker's list, which its timers carry back.
struct SignalingParts {
    let worker: Int
    let deviceIndexes: [Int]
    let settings: DriverSettings
    let loop: DriverLoop
    let table: CallTable
    let books: RunBooks
    let faults: DeviceFaults
    /// Renders and sends the target API's HTTP requests (kinds that speak HTTP for some operations use it).
    let sender: ActionSender
    unowned let host: EffectHost
    var slot = 0
}

/// A signaling kind that keeps the worker's `SignalingParts` it was made from: the parts it reaches, named once here
/// instead of forwarded by each kind.
protocol HoldsSignalingParts: AnyObject {
    var parts: SignalingParts { get }
}

extension HoldsSignalingParts {
    var settings: DriverSettings { parts.settings }
    var table: CallTable { parts.table }
    var books: RunBooks { parts.books }
    var faults: DeviceFaults { parts.faults }
    var sender: ActionSender { parts.sender }
    var loop: DriverLoop { parts.loop }
    var host: EffectHost { parts.host }
    var now: UInt64 { loop.clock.nowNanos() }
}
