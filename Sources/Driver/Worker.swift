import Faults
import Determinism
import Metrics
import PushModel
import Results

/// One worker: a loop (`DriverLoop`) that owns a fixed slice of devices and the calls running on them
/// (`CallTable`), one timer wheel, and the parts that do the work, each with its own state: `CallLauncher` (where
/// calls start and end), `ActionSender` (the target API's requests), `DeviceSignalings` (each device's signaling
/// kind: HTTP, a device socket, SIP; `SignalingRegistry`), `PushIntake` (pushes, and what signaling hears) and
/// `DeviceFaults`. The worker itself only dispatches: what the wheel fires goes to the part or the call it belongs
/// to, and the effects parts and calls return (`WorkerEffect`, `FlowEffect`) go to the part that carries them out.
/// Parts reach the worker only as its `EffectHost`, never each other through references set after they are made.
///
/// Ownership rule: everything below is touched only inside work the loop runs, which is why devices need no
/// locks. Only `post` (pushes) and the phases below are called from other threads; each hops onto the loop.
// limits: 16 stored properties: the loop, the wheel and the parts it dispatches to, plus the buffers and the
// `waking` flag kept between wakes so the hot path allocates and arms nothing it need not.
final class Worker: EffectHost, @unchecked Sendable {
    let loop: DriverLoop
    let settings: DriverSettings
    var wheel: TimerWheel<TimerEvent>
    let table: CallTable
    /// The recorder, journal, notes and pushes owed: what every part of the worker writes down.
    let books: RunBooks
    let faults: DeviceFaults
    private let index: Int
    private let deviceIndexes: [Int]
    /// The effects buffer lent to the call `tell` observes, kept between observations (`FlowInterpreter.lend`).
    private var spareEffects: [FlowEffect] = []
    /// The timers a wake fired, kept between wakes: a new array per wake was an allocation per timer tick.
    private var spareFired: [TimerEvent] = []
    /// Set while `wake` hands out what the wheel fired: the timers scheduled meanwhile are armed once, at the
    /// wake's end, instead of a wheel scan (and a `timerfd_settime` when the instant moved) at each.
    private var waking = false
    private let api: TargetAPI
    // The parts below hold the worker as their `EffectHost`, so they are made once it exists (in `init`, in order).
    private(set) lazy var sender = ActionSender(api: api, settings: settings, loop: loop, table: table, books: books,
                                                faults: faults, host: self)
    /// Each device's signaling; made on the loop (a kind may open a pool there).
    private(set) lazy var signaling = DeviceSignalings(SignalingParts(
        worker: index, deviceIndexes: deviceIndexes, settings: settings, loop: loop, table: table, books: books,
        faults: faults, sender: sender, host: self))
    private(set) lazy var intake = PushIntake(settings: settings, reader: api.reader, table: table, books: books,
                                              faults: faults, clock: loop.clock, signaling: signaling, host: self)
    /// Planned arrivals, redials and outside calls: where calls start and end, and when the worker drained.
    private(set) lazy var launcher = CallLauncher(worker: index, settings: settings, table: table, books: books,
                                                  faults: faults, clock: loop.clock, signaling: signaling,
                                                  host: self)

    /// - Parameter runStartNanos: the origin of every per-second series, the same for all workers so their
    ///   recorders merge second by second.
    init(index: Int, settings: DriverSettings, loop: DriverLoop, deviceIndexes: [Int], runStartNanos: UInt64,
         faultLog: FaultLog = FaultLog(), deviceCalls: DeviceCalls? = nil) throws {
        let books = RunBooks(journal: try settings.runDirectory.map {
            try WorkerJournal(configuration: .init(directory: $0, sampleEvery: settings.rowSampleEvery), worker: index)
        }, runStart: runStartNanos)
        let table = CallTable(FlowContext(
            devices: DeviceModel(identities: UserBook.identities(deviceIndexes, settings: settings),
                                 configuration: settings.deviceConfiguration),
            actionIDs: ActionIDs(worker: index)))
        let faults = DeviceFaults(schedule: FaultSchedule(windows: settings.faults, seed: settings.seed),
                                  log: faultLog, deviceCalls: deviceCalls ?? DeviceCalls(devices: settings.devices),
                                  table: table, books: books, clock: loop.clock)
        (self.loop, self.settings, self.table, self.books, self.faults) = (loop, settings, table, books, faults)
        (self.index, self.deviceIndexes) = (index, deviceIndexes)
        api = TargetAPI(settings.api, handles: settings.handles)
        wheel = TimerWheel(startNanos: loop.clock.nowNanos())
        loop.onWake { [unowned self] in wake() }
        loop.sync { _ = (sender, signaling, intake, launcher) }
        if let tracing = settings.tracing.spans { loop.sync { books.tracer = tracing(index) } }
    }

    /// A worker on its own thread (`ThreadLoop`).
    convenience init(index: Int, settings: DriverSettings, clock: Clock, deviceIndexes: [Int], runStartNanos: UInt64,
                     faultLog: FaultLog = FaultLog(), deviceCalls: DeviceCalls? = nil) throws {
        let loop = try ThreadLoop(name: "callstorm.worker.\(index)", clock: clock,
                                  maxConnections: settings.connectionsPerWorker, caFile: settings.targetCAFile,
                                  client: settings.scenario.targetClient)
        try self.init(index: index, settings: settings, loop: loop, deviceIndexes: deviceIndexes,
                      runStartNanos: runStartNanos, faultLog: faultLog, deviceCalls: deviceCalls)
    }

    var clock: Clock { loop.clock }
    var live: LiveStats { books.live }

    /// Runs `work` on the loop: for hand-overs from other threads (the push gateway's).
    func post(_ work: @escaping () -> Void) { loop.post(work) }

    // MARK: - Phases (each called from the driver, hops onto the loop)

    /// Registers every device of this slice with the target, at most `concurrency` at a time.
    func registerAll(concurrency: Int, done: @escaping @Sendable () -> Void) {
        loop.execute { [self] in signaling.registerAll(concurrency: concurrency, done: done) }
    }

    /// Starts the load at `loadStartNanos` (the plan's zero). `drained` runs on the loop once arrivals are over
    /// and no call is left.
    func start(loadStartNanos: UInt64, drained: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            faults.loadStart = loadStartNanos
            launcher.start(loadStart: loadStartNanos, drained: drained)
            for kind in signaling.kinds { kind.loadStarts(at: loadStartNanos) }
            wheel.schedule(.tick, at: loadStartNanos + 1_000_000_000)
            rearm()
        }
    }

    /// Stops planning new calls; calls in flight go on until they end or `finish` is called.
    func stopArrivals() {
        loop.execute { [self] in launcher.stopArrivals(now: clock.nowNanos()) }
    }

    /// Ends the run for this worker: counts every action still in flight, seals the recorder, closes the loop.
    func finish() -> Recorder {
        loop.sync {
            guard !books.sealed else { return books.recorder }
            books.sealed = true
            let now = clock.nowNanos()
            books.countAtStop(table, now: now)
            books.tracer?.stop(now: now)
            launcher.abandon(now: now)
            for kind in signaling.kinds { kind.stop() }
            loop.close()
            return books.close(activeCalls: table.calls.count, now: now)
        }
    }

    // MARK: - Dispatch

    private func wake() {
        let now = clock.nowNanos()
        var fired: [TimerEvent] = []
        swap(&fired, &spareFired)
        wheel.advance(to: now, into: &fired)
        waking = true
        // Read where each lies: `for event in fired` copied (retained) each event, released again beside the
        // buffer's own at the emptying below.
        for i in fired.indices { handle(fired[i], now: now) }
        waking = false
        fired.removeAll(keepingCapacity: true)
        spareFired = fired
        rearm()
    }

    /// Points the loop's one timer at the wheel's next occupied tick.
    func rearm() {
        guard !waking, !books.sealed, let next = wheel.nextWakeNanos() else { return }
        loop.arm(wakeAt: next)
    }

    func scheduleCancellable(_ event: TimerEvent, at nanos: UInt64) -> TimerTicket {
        let ticket = wheel.schedule(event, at: nanos)
        rearm()
        return ticket
    }

    /// The loop's timer is left where it points: a wake with nothing due costs one empty advance, a rearm per
    /// cancel would cost a wheel scan each.
    func cancel(_ ticket: TimerTicket) { wheel.cancel(ticket) }

    private func handle(_ event: TimerEvent, now: UInt64) {
        switch event {
        case .arrival(let arrival): launcher.arrive(arrival, now: now)
        case .redial(let due): launcher.startRedial(due, now: now)
        case .flow(let id, let timer): tell(id, now: now) { $0.timerFired(timer, now: now, &$1) }
        case .deliver(let push, let local): intake.deliver(push, local: local)
        case .report(let push, let local): intake.process(push, local: local, delivered: now)
        case .releaseHeld(let local, let serial): intake.releaseHeld(local, serial: serial)
        case .tick: tick(now: now)
        case .signaling(let timer): signaling.timerFired(timer, now: now)
        case .outsideWindowClosed: launcher.outsideWindowClosed()
        }
    }

    // MARK: - Effects

    /// Carries out what a part heard (`WorkerEffect`), at once: the part goes on knowing it was done.
    func apply(_ effect: WorkerEffect) {
        switch effect {
        case .schedule(let event, let at):
            wheel.schedule(event, at: at)
            rearm()
        case .answer(let request, let answer, let now):
            tell(request.call, now: now) { $0.answered(request, answer, now: now, &$1) }
        case .ring(let local, let payload, let uuid, let acceptedNanos, let now):
            intake.reportIncoming(local, payload: payload, uuid: uuid, acceptedNanos: acceptedNanos, now: now)
        case .observe(let payload, let local, let channel, let call, let now):
            intake.observe(payload, local: local, now: now, channel: channel, call: call)
        case .takeOutside(let local, let uuid, let now): _ = launcher.takeOutsideCall(local, uuid: uuid, now: now)
        case .takeWaiting(let local, let uuid, let now): _ = launcher.takeWaitingCall(local, uuid: uuid, now: now)
        }
    }

    @discardableResult
    func tell(_ id: Int, now: UInt64, _ observe: (inout FlowInterpreter, inout FlowContext) -> [FlowEffect]) -> Bool {
        // Found by index and changed in place: `calls[id] != nil` copied the whole interpreter out to compare it.
        guard let slot = table.calls.index(forKey: id) else { return false }
        table.calls.values[slot].lend(&spareEffects)
        var effects = observe(&table.calls.values[slot], &table.context)
        apply(&effects, call: id, now: now)
        // Emptied in place and kept for the next observation (a nested `tell` during `apply` found it lent out
        // and used a new one).
        // Only when there is something to empty: `removeAll(keepingCapacity:)` goes through the standard library's
        // general `replaceSubrange` (~145 instructions) even for an empty buffer.
        if !effects.isEmpty { effects.removeAll(keepingCapacity: true) }
        spareEffects = effects
        return true
    }

    /// Carries out a call's effects: actions through the device's signaling, timers on the wheel, figures and lines
    /// in the books. Answers go back to the call through `tell`. Each effect is moved out of the buffer (a payload-
    /// free case left in its place), not copied: a copy retained every reference of its payload here and the
    /// buffer's emptying released them again (issue 33).
    func apply(_ effects: inout [FlowEffect], call id: Int, now: UInt64) {
        var armed = false
        for i in effects.indices {
            var effect = FlowEffect.relaunched(device: -1)
            swap(&effect, &effects[i])
            // Consumed: each case's payload is moved into its binding; a plain `switch effect` retained it there
            // and released it twice (the binding, then the effect) per effect.
            switch consume effect {
            case .send(let request): signaling.perform(request)
            case .arm(let timer, let at):
                wheel.schedule(.flow(call: id, timer), at: at)
                armed = true
            case .count(let name, let n): books.count(name, by: n, at: now)
            case .record(let name, let micros): books.record(name, micros: micros, at: now)
            case .invoked(let record):
                // The two names read where they lie: a `let` of the identity copied (retained) all its fields.
                books.invoked(record, device: table.devices[record.device].identity.id,
                              user: table.devices[record.device].identity.user, now: now)
            case .finished(let record):
                books.finished(record, device: table.devices[record.device].identity.id, now: now)
                for (local, event, at) in faults.lifeAtConnect(record, call: id, now: now) {
                    wheel.schedule(.flow(call: id, .life(event, device: local)), at: at)
                    armed = true
                }
            case .relaunched(let local): signaling.moment(.relaunched, device: local)
            case .poll(let local, let uuid): sender.poll(uuid, for: local, call: id)
            case .fetchViews(let uuids): sender.fetchViews(uuids, call: id)
            case .finalView(let view): books.writeFinal(view, now: now)
            case .note(let line, let limit): books.note(line, limit: limit)
            case .completed(let outcome):
                books.tracer?.callEnded(call: id, now: now, outcome: outcome)
                launcher.complete(id)
            }
        }
        if armed { rearm() }
    }

    /// The once-a-second beat: the books' checkpoint, with the calls in flight now and what signaling holds open.
    private func tick(now: UInt64) {
        books.tick(now: now, activeCalls: table.calls.count) { snapshot in
            table.countInFlight(into: &snapshot, now: now, perFlow: false)
            for kind in signaling.kinds { kind.checkpoint(into: &snapshot, now: now) }
        }
        if !books.sealed {
            wheel.schedule(.tick, at: now + 1_000_000_000)
        }
    }
}
