import Faults
import Determinism
import Metrics
import PushModel
import Results

/// One worker: a loop (`DriverLoop`) that owns a fixed slice of devices and the calls running on them
/// (`CallTable`), one timer wheel, and the parts that do the work: `CallLauncher` (where calls start and end),
/// `ActionSender` (requests to the target), `PushIntake` (pushes from the gateway), `DeviceSockets` (device
/// sockets, when the scenario has them) and `DeviceFaults`. The worker itself only dispatches: what the wheel fires
/// goes to the part or the call it belongs to, and the effects a call returns go to the part that carries them out.
///
/// Ownership rule: everything below is touched only inside work the loop runs, which is why devices need no
/// locks. Only `post` (pushes) and the phases below are called from other threads; each hops onto the loop.
final class Worker: @unchecked Sendable {
    let loop: DriverLoop
    let settings: DriverSettings
    var wheel: TimerWheel<TimerEvent>
    let table: CallTable
    /// Planned arrivals, redials and outside calls: where calls start and end, and when the worker drained.
    let launcher: CallLauncher
    /// The recorder, journal, notes and pushes owed: what every part of the worker writes down.
    let books: RunBooks
    let faults: DeviceFaults
    let sender: ActionSender
    let intake: PushIntake
    /// Device sockets (`device.socket`); nil when devices hold none.
    private(set) var sockets: DeviceSockets?

    /// - Parameter runStartNanos: the origin of every per-second series, the same for all workers so their
    ///   recorders merge second by second.
    init(index: Int, settings: DriverSettings, loop: DriverLoop, deviceIndexes: [Int], runStartNanos: UInt64,
         faultLog: FaultLog = FaultLog(), deviceCalls: DeviceCalls? = nil) throws {
        let books = RunBooks(journal: try settings.runDirectory.map {
            try WorkerJournal(configuration: .init(directory: $0, sampleEvery: settings.rowSampleEvery), worker: index)
        }, runStart: runStartNanos)
        let table = CallTable(FlowContext(
            devices: DeviceModel(identities: deviceIndexes.map {
                                     DeviceIdentity(index: $0, seed: settings.seed, handles: settings.handles) },
                                 configuration: settings.deviceConfiguration),
            actionIDs: ActionIDs(worker: index)))
        let faults = DeviceFaults(schedule: FaultSchedule(windows: settings.faults, seed: settings.seed),
                                  log: faultLog, deviceCalls: deviceCalls ?? DeviceCalls(devices: settings.devices),
                                  table: table, books: books, clock: loop.clock)
        let api = TargetAPI(settings.api, handles: settings.handles)
        (self.loop, self.settings, self.table, self.books, self.faults) = (loop, settings, table, books, faults)
        sender = ActionSender(api: api, settings: settings, loop: loop, table: table, books: books, faults: faults)
        intake = PushIntake(settings: settings, reader: api.reader, table: table, books: books, faults: faults,
                            clock: loop.clock)
        wheel = TimerWheel(startNanos: loop.clock.nowNanos())
        launcher = CallLauncher(worker: index, settings: settings, table: table, books: books, faults: faults,
                                sender: sender, clock: loop.clock)
        table.apply = { [unowned self] effects, id, now in apply(effects, call: id, now: now) }
        table.schedule = { [unowned self] event, at in
            wheel.schedule(event, at: at)
            rearm()
        }
        loop.onWake { [unowned self] in wake() }
        loop.sync {
            sender.sip = SIPSignaling.make(settings: settings, loop: loop, table: table, books: books, intake: intake,
                                           faults: faults)
            intake.sip = sender.sip
            sockets = DeviceSockets.make(worker: index, settings: settings, deviceIndexes: deviceIndexes, loop: loop,
                                         table: table, books: books, faults: faults, sender: sender, intake: intake)
            launcher.sockets = sockets
        }
    }

    /// A worker on its own thread (`ThreadLoop`).
    convenience init(index: Int, settings: DriverSettings, clock: Clock, deviceIndexes: [Int], runStartNanos: UInt64,
                     faultLog: FaultLog = FaultLog(), deviceCalls: DeviceCalls? = nil) throws {
        let loop = ThreadLoop(name: "callstorm.worker.\(index)", clock: clock,
                              maxConnections: settings.connectionsPerWorker, caFile: settings.targetCAFile)
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
        loop.execute { [self] in sender.registerAll(concurrency: concurrency, done: done) }
    }

    /// Starts the load at `loadStartNanos` (the plan's zero). `drained` runs on the loop once arrivals are over
    /// and no call is left.
    func start(loadStartNanos: UInt64, drained: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            faults.loadStart = loadStartNanos
            launcher.start(loadStart: loadStartNanos, drained: drained)
            sockets?.planFaults(loadStart: loadStartNanos)
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
            launcher.abandon(now: now)
            sockets?.stop()
            sender.sip?.stop()
            loop.close()
            return books.close(activeCalls: table.calls.count, now: now)
        }
    }

    // MARK: - Dispatch

    private func wake() {
        let now = clock.nowNanos()
        var fired: [TimerEvent] = []
        wheel.advance(to: now, into: &fired)
        for event in fired { handle(event, now: now) }
        rearm()
    }

    /// Points the loop's one timer at the wheel's next occupied tick.
    func rearm() {
        guard !books.sealed, let next = wheel.nextWakeNanos() else { return }
        loop.arm(wakeAt: next)
    }

    private func handle(_ event: TimerEvent, now: UInt64) {
        switch event {
        case .arrival(let arrival): launcher.arrive(arrival, now: now)
        case .redial(let due): launcher.startRedial(due, now: now)
        case .flow(let id, let timer): table.tell(id, now: now) { $0.timerFired(timer, now: now, &$1) }
        case .deliver(let push, let local): intake.deliver(push, local: local)
        case .report(let push, let local): intake.process(push, local: local, delivered: now)
        case .releaseHeld(let local, let serial): intake.releaseHeld(local, serial: serial)
        case .tick: tick(now: now)
        case .socket(let timer): sockets?.timerFired(timer, now: now)
        case .socketReply(let id): sockets?.replyTimedOut(id)
        case .socketFault(let timer): sockets?.faultFired(timer, now: now)
        case .sipAction(let key, let slot): sender.sip?.actionTimedOut(key: key, slot: slot)
        case .outsideWindowClosed: launcher.outsideWindowClosed()
        case .sipWake(let local, let callID): sender.sip?.wakeDue(local, callID: callID)
        }
    }

    /// Carries out a call's effects: requests through the sender, timers on the wheel, figures and lines in the
    /// books. Answers go back to the call through `CallTable.tell`.
    func apply(_ effects: [FlowEffect], call id: Int, now: UInt64) {
        var armed = false
        for effect in effects {
            switch effect {
            case .send(let request): sender.perform(request)
            case .arm(let timer, let at):
                wheel.schedule(.flow(call: id, timer), at: at)
                armed = true
            case .count(let name, let n): books.count(name, by: n, at: now)
            case .record(let name, let micros): books.record(name, micros: micros, at: now)
            case .invoked(let record): books.invoked(record, device: table.devices[record.device].identity.id, now: now)
            case .finished(let record):
                books.finished(record, device: table.devices[record.device].identity.id, now: now)
            case .poll(let local, let uuid): sender.poll(uuid, for: local, call: id)
            case .fetchViews(let uuids): sender.fetchViews(uuids, call: id)
            case .finalView(let view): books.writeFinal(view, now: now)
            case .note(let line, let limit): books.note(line, limit: limit)
            case .completed: launcher.complete(id)
            }
        }
        if armed { rearm() }
    }

    /// The once-a-second beat: the books' checkpoint, with the calls and sockets in flight now.
    private func tick(now: UInt64) {
        books.tick(now: now, activeCalls: table.calls.count) { snapshot in
            table.countInFlight(into: &snapshot, now: now, perFlow: false)
            if let open = sockets?.lifecycle.openCount, open > 0 {
                snapshot.count(.socketOpenAtStop, by: Int64(open), atNanos: now)
            }
        }
        if !books.sealed {
            wheel.schedule(.tick, at: now + 1_000_000_000)
        }
    }
}
