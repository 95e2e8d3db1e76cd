import CallModel
import Dispatch
import Foundation
import Metrics
import PushGateway
import Results
import Scenario
import Synchronization
import Transport

/// One worker: a serial DispatchQueue that owns a fixed slice of devices, their calls, one timer wheel, one HTTP
/// client and one recorder. Ownership rule: everything below except the atomics is touched only on `queue`,
/// which is why devices need no locks.
final class Worker: @unchecked Sendable {
    let index: Int
    let queue: DispatchQueue
    private let settings: DriverSettings
    private let clock: Clock
    private var client: HTTPClient!
    private var timer: DispatchSourceTimer!
    private var armedWake: UInt64 = .max
    private(set) var recorder: Recorder
    private var wheel: TimerWheel<TimerEvent>
    private var due: [TimerEvent] = []

    private var devices: [Device] = []
    private var idle: [Int] = []
    private var idleHead = 0
    private var calls: [Int: Call] = [:]
    private var callByConversation: [String: Int] = [:]
    private var arrivals: ArrivalPlan.Iterator
    private var arrivalsDone = false
    /// An arrival sits in the wheel waiting for its planned time.
    private var arrivalPending = false
    private var finished = false
    private var nextActionID: UInt64 = 0
    private var loadStart: UInt64 = 0
    private var onDrained: (@Sendable () -> Void)?
    private let journal: WorkerJournal?
    private let runStart: UInt64

    // Read by the progress line from another thread.
    let liveStarted = Atomic<Int>(0)
    let liveActive = Atomic<Int>(0)
    let liveCompleted = Atomic<Int>(0)
    let liveP99Micros = Atomic<Int>(0)

    /// - Parameter runStartNanos: the origin of every per-second series, the same for all workers so their
    ///   recorders merge second by second.
    init(index: Int, settings: DriverSettings, clock: Clock, deviceIndexes: [Int], runStartNanos: UInt64) throws {
        self.journal = try settings.runDirectory.map {
            try WorkerJournal(configuration: .init(directory: $0, sampleEvery: settings.rowSampleEvery), worker: index)
        }
        self.runStart = runStartNanos
        self.index = index
        self.settings = settings
        self.clock = clock
        self.queue = DispatchQueue(label: "callstorm.worker.\(index)", qos: .userInteractive)
        self.recorder = Recorder(runStartNanos: runStartNanos)
        self.wheel = TimerWheel(startNanos: clock.nowNanos())
        self.arrivals = settings.plan.makeIterator()
        self.devices = deviceIndexes.map { Device(identity: DeviceIdentity(index: $0, seed: settings.seed)) }
        queue.sync {
            var configuration = HTTPClient.Configuration()
            configuration.maxConnections = settings.connectionsPerWorker
            client = HTTPClient(queue: queue, configuration: configuration)
            timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
            timer.setEventHandler { [unowned self] in self.wake() }
            timer.schedule(deadline: .distantFuture)
            timer.resume()
        }
    }

    // MARK: - Phases (each called from the driver, hops onto the queue)

    /// Registers every device of this slice with the target, at most `concurrency` at a time.
    func registerAll(concurrency: Int, done: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            var next = 0
            var outstanding = 0
            func pump() {
                while outstanding < concurrency, next < devices.count {
                    let local = next
                    next += 1
                    outstanding += 1
                    register(local) {
                        outstanding -= 1
                        if next < self.devices.count { pump() } else if outstanding == 0 { done() }
                    }
                }
                if devices.isEmpty { done() }
            }
            pump()
        }
    }

    private func register(_ local: Int, then: @escaping () -> Void) {
        let identity = devices[local].identity
        let body = "{\"id\":\"\(identity.id)\",\"handle\":{\"kind\":\"\(identity.handle.kind.rawValue)\"," +
            "\"value\":\"\(identity.handle.value)\",\"displayName\":\"\(identity.handle.displayName)\"}," +
            "\"apnsToken\":\"\(identity.apnsToken)\"}"
        let started = clock.nowNanos()
        request("POST", "/v1/devices", body) { [self] result in
            let now = clock.nowNanos()
            recorder.record("register", micros: Int64((now - started) / 1000), atNanos: now)
            if case .success(let response) = result, response.status == 201 {
                devices[local].registered = true
                idle.append(local)
                recorder.count("devices.registered", atNanos: now)
            } else {
                recorder.count("devices.register_failed", atNanos: now)
                count(result, at: now)
            }
            then()
        }
    }

    /// Starts the load at `loadStartNanos` (the plan's zero). `drained` runs on the queue once arrivals are over
    /// and no call is left.
    func start(loadStartNanos: UInt64, drained: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            loadStart = loadStartNanos
            onDrained = drained
            scheduleNextArrival()
            wheel.schedule(.tick, at: loadStart + 1_000_000_000)
            rearm()
        }
    }

    /// Stops planning new calls; calls in flight go on until they end or `finish` is called.
    func stopArrivals() {
        queue.async { [self] in
            abandonArrivals(now: clock.nowNanos())
            checkDrained()
        }
    }

    /// Ends the run for this worker: counts every action still in flight, seals the recorder, closes the client.
    func finish() -> Recorder {
        queue.sync {
            guard !finished else { return recorder }
            finished = true
            let now = clock.nowNanos()
            for call in calls.values {
                for action in call.actions where !action.isFinished {
                    recorder.count("action.\(action.kind.rawValue).in_flight_at_stop", atNanos: now)
                }
                recorder.count("calls.in_flight_at_stop", atNanos: now)
            }
            abandonArrivals(now: now)
            timer.cancel()
            client.close()
            recorder.gauge("conversations.active", value: Double(calls.count), atNanos: now)
            recorder.seal()
            journal?.close(recorder)
            return recorder
        }
    }

    // MARK: - Timer wheel

    private func wake() {
        let now = clock.nowNanos()
        armedWake = .max
        wheel.advance(to: now, into: &due)
        var fired = due
        due.removeAll(keepingCapacity: true)
        for event in fired { handle(event, now: now) }
        fired.removeAll()
        rearm()
    }

    /// Points the queue's one timer at the wheel's next occupied tick.
    private func rearm() {
        guard !finished, let next = wheel.nextWakeNanos() else { return }
        if next == armedWake { return }
        armedWake = next
        let now = clock.nowNanos()
        let delta = next > now ? next - now : 0
        timer.schedule(deadline: .now() + .nanoseconds(Int(delta)), leeway: .microseconds(50))
    }

    private func schedule(_ event: TimerEvent, at nanos: UInt64) {
        wheel.schedule(event, at: nanos)
    }

    private func handle(_ event: TimerEvent, now: UInt64) {
        switch event {
        case .arrival(let arrival): arrive(arrival, now: now)
        case .answer(let id, let planned): answer(id, planned: planned, now: now)
        case .hangup(let id, let planned): hangup(id, planned: planned, now: now)
        case .remoteEndWatchdog(let id): remoteEndWatchdog(id, now: now)
        case .tick: tick(now: now)
        }
    }

    private func tick(now: UInt64) {
        recorder.gauge("conversations.active", value: Double(calls.count), atNanos: now)
        if let p99 = recorder.histograms["push_to_report"]?.value(atPercentile: 99) {
            liveP99Micros.store(Int(p99), ordering: .relaxed)
        }
        journal?.tick(recorder, second: recorder.second(atNanos: now))
        if !finished { schedule(.tick, at: now + 1_000_000_000) }
    }

    // MARK: - Arrivals (open model: a call starts at its planned time whatever earlier calls are doing)

    private func scheduleNextArrival() {
        guard !arrivalsDone else { return }
        while let arrival = arrivals.next() {
            guard arrival.index % settings.workers == index else { continue }
            schedule(.arrival(arrival), at: loadStart + arrival.plannedNanos)
            arrivalPending = true
            return
        }
        arrivalsDone = true
        checkDrained()
    }

    /// Counts the arrivals this worker's plan still had (the one waiting in the wheel included) as not started,
    /// so planned vs delivered stays honest after a stop.
    private func abandonArrivals(now: UInt64) {
        guard !arrivalsDone else { return }
        var abandoned: Int64 = arrivalPending ? 1 : 0
        while let arrival = arrivals.next() {
            if arrival.index % settings.workers == index { abandoned += 1 }
        }
        if abandoned > 0 { recorder.count("calls.not_started_at_stop", by: abandoned, atNanos: now) }
        arrivalPending = false
        arrivalsDone = true
    }

    private func arrive(_ arrival: Arrival, now: UInt64) {
        guard arrivalPending else { return }  // abandoned by a stop
        arrivalPending = false
        let planned = loadStart + arrival.plannedNanos
        recorder.record("scheduler_lag", micros: Int64((now &- planned) / 1000), atNanos: now)
        recorder.count("calls.planned", atNanos: planned)
        scheduleNextArrival()
        guard idle.count - idleHead >= 2 else {
            // Not enough free devices: the plan asked for more concurrent calls than the scenario has devices.
            recorder.count("calls.dropped.no_idle_device", atNanos: now)
            return
        }
        let caller = takeIdle()
        let callee = takeIdle()
        devices[caller].callID = arrival.index
        devices[caller].role = .caller
        devices[callee].callID = arrival.index
        devices[callee].role = .callee
        var call = Call(arrival: arrival, caller: caller, callee: callee)
        call.startIssuedNanos = now
        calls[arrival.index] = call
        liveStarted.add(1, ordering: .relaxed)
        liveActive.add(1, ordering: .relaxed)
        recorder.count("calls.started", atNanos: now)
        performStart(arrival.index, planned: planned, now: now)
    }

    /// The longest-idle device (a FIFO, so load spreads over every device). Call only when one is idle.
    private func takeIdle() -> Int {
        let local = idle[idleHead]
        idleHead += 1
        if idleHead > 4096, idleHead * 2 > idle.count {
            idle.removeFirst(idleHead)
            idleHead = 0
        }
        return local
    }

    // MARK: - Actions

    private func newAction(_ kind: ActionKind, call: Int, by actor: Int, step: String, planned: UInt64,
                           now: UInt64) -> Int {
        nextActionID += 1
        let action = Action(id: UInt64(index) << 48 | nextActionID, kind: kind,
                            conversationUUID: calls[call]?.conversationID ?? "", plannedNanos: planned,
                            startedNanos: now, timeoutNanos: now + settings.actionTimeoutNanos)
        calls[call]?.actions.append(action)
        calls[call]?.actors.append(actor)
        calls[call]?.steps.append(step)
        recorder.count("action.\(kind.rawValue).started", atNanos: now)
        return (calls[call]?.actions.count ?? 1) - 1
    }

    private func finishAction(_ call: Int, _ slot: Int, _ outcome: ActionOutcome, now: UInt64) {
        guard var record = calls[call], slot < record.actions.count else { return }
        guard record.actions[slot].finish(outcome, at: now) else { return }
        let action = record.actions[slot]
        calls[call] = record
        let kind = action.kind.rawValue
        recorder.count("action.\(kind).\(action.outcome!.label)", atNanos: now)
        recorder.record("\(kind).fulfillment", micros: Int64((now - action.startedNanos) / 1000), atNanos: now)
        recorder.record("\(kind).fulfillment_from_planned", micros: Int64((now &- action.plannedNanos) / 1000),
                        atNanos: now)
        if let journal {
            var reason = ""
            if case .failed(let r)? = action.outcome { reason = r }
            journal.action(ActionRow(
                id: action.id, kind: kind, step: "incoming-1to1/\(record.steps[slot])",
                device: devices[record.actors[slot]].identity.id, conversation: record.conversationID ?? "",
                plannedNanos: action.plannedNanos &- runStart, startedNanos: action.startedNanos &- runStart,
                finishedNanos: now &- runStart, outcome: action.outcome!.label, reason: reason))
        }
    }

    private func outcome(of result: Result<ClientResponse, TransportError>, expect: Int) -> ActionOutcome {
        switch result {
        case .success(let response) where response.status == expect: return .fulfilled
        case .success(let response): return .failed(reason: "http_\(response.status)")
        case .failure(.timeout): return .timedOut
        case .failure(let error): return .failed(reason: error.kind)
        }
    }

    // MARK: - The incoming-1to1 flow

    private func performStart(_ id: Int, planned: UInt64, now: UInt64) {
        guard let call = calls[id] else { return }
        let slot = newAction(.start, call: id, by: call.caller, step: "dial", planned: planned, now: now)
        let caller = devices[call.caller].identity
        let callee = devices[call.callee].identity
        let body = "{\"caller\":\"\(caller.id)\",\"handles\":[{\"kind\":\"\(callee.handle.kind.rawValue)\"," +
            "\"value\":\"\(callee.handle.value)\",\"displayName\":\"\(callee.handle.displayName)\"}],\"video\":false}"
        request("POST", "/v1/conversations", body) { [self] result in
            let now = clock.nowNanos()
            var result = result
            var reply: ConversationReply?
            if case .success(let response) = result, response.status == 201 {
                reply = try? JSONDecoder().decode(ConversationReply.self, from: Data(response.body))
                if reply == nil { result = .success(ClientResponse(status: 0, body: [])) }
            }
            count(result, at: now)
            let outcome = reply == nil ? self.outcome(of: result, expect: 201) : .fulfilled
            finishAction(id, slot, outcome, now: now)
            guard let call = calls[id] else { return }
            guard let reply else {
                // The callee may already ring if the push beat the answer; either way this call is over.
                endCallLocally(id, now: now)
                return
            }
            bind(id, conversation: reply.id)
            var conversation = Conversation(uuid: reply.id, members: [devices[call.callee].identity.handle])
            try? conversation.move(to: .joining)  // outgoing: startedConnecting
            devices[call.caller].conversation = conversation
        }
    }

    private func bind(_ id: Int, conversation: String) {
        guard var call = calls[id] else { return }
        if let known = call.conversationID, known != conversation {
            recorder.count("pushes.conversation_mismatch", atNanos: clock.nowNanos())
            return
        }
        call.conversationID = conversation
        calls[id] = call
        callByConversation[conversation] = id
    }

    /// A push reached this device (called on the queue by the push sink).
    func receive(_ push: APNsPush, local: Int) {
        let now = clock.nowNanos()
        guard !finished else { return }
        recorder.record("push_delivery", micros: Int64((now &- push.acceptedNanos) / 1000), atNanos: now)
        recorder.count("pushes.received.\(push.pushType.rawValue)", atNanos: now)
        let payload = PushPayload.decode(push.payload)
        if push.pushType == .voip {
            receiveVoIP(push, payload: payload, local: local, now: now)
        } else {
            receiveBackground(payload, local: local, now: now)
        }
        if let journal {
            // Reporting happens in the same step as delivery, so for VoIP pushes the two instants coincide.
            let reported = push.pushType == .voip ? clock.nowNanos() : nil
            journal.push(PushRow(
                apnsID: push.apnsID, device: devices[local].identity.id, pushType: push.pushType.rawValue,
                acceptedNanos: push.acceptedNanos &- runStart, deliveredNanos: now &- runStart,
                reportedNanos: reported.map { $0 &- runStart },
                deadlineMissed: reported.map { $0 &- push.acceptedNanos > settings.deadlineNanos } ?? false))
        }
    }

    private func receiveVoIP(_ push: APNsPush, payload: PushPayload?, local: Int, now: UInt64) {
        // iOS: a VoIP push must be reported as an incoming conversation at once, whatever it says.
        let latency = now &- push.acceptedNanos
        recorder.record("push_to_report", micros: Int64(latency / 1000), atNanos: now)
        if latency > settings.deadlineNanos {
            recorder.count("push.deadline_missed", atNanos: now)
            devices[local].deadlineMisses += 1
        }
        guard let uuid = payload?.uuid else {
            recorder.count("pushes.bad_payload", atNanos: now)
            return
        }
        guard let id = devices[local].callID, devices[local].role == .callee, let call = calls[id],
              !call.calleeLeft else {
            recorder.count("pushes.unexpected", atNanos: now)
            return
        }
        if devices[local].conversation != nil {
            recorder.count("pushes.duplicate_voip", atNanos: now)
            return
        }
        bind(id, conversation: uuid)
        recorder.record("dial_to_ring", micros: Int64((now - call.startIssuedNanos) / 1000), atNanos: now)
        var conversation = Conversation(uuid: uuid)
        if let h = payload?.handle, let value = h.value {
            conversation.members = [Handle(kind: Handle.Kind(rawValue: h.kind ?? "") ?? .generic, value: value,
                                           displayName: h.displayName ?? value)]
        }
        conversation.capabilities = Capabilities(names: payload?.capabilities ?? [])
        devices[local].conversation = conversation
        recorder.count("conversations.reported", atNanos: now)
        let planned = now + call.arrival.answerAfterNanos
        schedule(.answer(call: id, plannedNanos: planned), at: planned)
        rearm()
    }

    private func receiveBackground(_ payload: PushPayload?, local: Int, now: UInt64) {
        guard let payload, let uuid = payload.uuid, let event = payload.event else {
            recorder.count("pushes.bad_payload", atNanos: now)
            return
        }
        guard let id = callByConversation[uuid], let call = calls[id],
              devices[local].callID == id, var conversation = devices[local].conversation else {
            recorder.count("pushes.stale", atNanos: now)
            return
        }
        if let version = payload.version {
            if version < conversation.version { recorder.count("pushes.out_of_order", atNanos: now) }
            conversation.version = max(conversation.version, version)
        }
        switch event {
        case "joined":
            if conversation.state == .joining { try? conversation.move(to: .joined) }  // connected
            devices[local].conversation = conversation
        case "ended":
            conversation.end(.remoteEnded)
            devices[local].conversation = conversation
            markLeft(id, local: local, call: call, now: now)
        default:
            devices[local].conversation = conversation
        }
    }

    private func answer(_ id: Int, planned: UInt64, now: UInt64) {
        guard let call = calls[id], !call.calleeLeft, let uuid = call.conversationID,
              var conversation = devices[call.callee].conversation, conversation.state == .idle else { return }
        recorder.record("scheduler_lag", micros: Int64((now &- planned) / 1000), atNanos: now)
        try? conversation.move(to: .joining)
        devices[call.callee].conversation = conversation
        let slot = newAction(.join, call: id, by: call.callee, step: "answer", planned: planned, now: now)
        let body = "{\"device\":\"\(devices[call.callee].identity.id)\"}"
        request("POST", "/v1/conversations/\(uuid)/join", body) { [self] result in
            let now = clock.nowNanos()
            count(result, at: now)
            let outcome = self.outcome(of: result, expect: 200)
            finishAction(id, slot, outcome, now: now)
            guard let call = calls[id] else { return }
            if outcome == .fulfilled {
                if var c = devices[call.callee].conversation, c.state == .joining {
                    try? c.move(to: .joined)
                    devices[call.callee].conversation = c
                }
                let planned = now + call.arrival.talkNanos
                schedule(.hangup(call: id, plannedNanos: planned), at: planned)
                rearm()
            } else {
                calls[id]?.failed = true
                hangupNow(id, by: call.caller, now: now, planned: now)
            }
        }
    }

    private func hangup(_ id: Int, planned: UInt64, now: UInt64) {
        guard let call = calls[id] else { return }
        recorder.record("scheduler_lag", micros: Int64((now &- planned) / 1000), atNanos: now)
        let ender = call.arrival.callerHangsUp ? call.caller : call.callee
        hangupNow(id, by: ender, now: now, planned: planned)
    }

    /// `local` ends the conversation with an End action; the other side learns it by background push.
    private func hangupNow(_ id: Int, by local: Int, now: UInt64, planned: UInt64) {
        guard let call = calls[id], let uuid = call.conversationID else {
            endCallLocally(id, now: now)
            return
        }
        if var c = devices[local].conversation, c.state != .left {
            try? c.move(to: .leaving)
            devices[local].conversation = c
        }
        let slot = newAction(.end, call: id, by: local, step: local == call.caller ? "caller-hangup" : "callee-hangup",
                             planned: planned, now: now)
        let body = "{\"device\":\"\(devices[local].identity.id)\"}"
        request("POST", "/v1/conversations/\(uuid)/end", body) { [self] result in
            let now = clock.nowNanos()
            count(result, at: now)
            let outcome = self.outcome(of: result, expect: 200)
            finishAction(id, slot, outcome, now: now)
            guard let call = calls[id] else { return }
            if outcome != .fulfilled { calls[id]?.failed = true }
            devices[local].conversation?.end(outcome == .fulfilled ? .localEnded : .failed)
            markLeft(id, local: local, call: call, now: now)
            if calls[id] != nil {
                schedule(.remoteEndWatchdog(call: id), at: now + settings.actionTimeoutNanos)
                rearm()
            }
        }
    }

    private func remoteEndWatchdog(_ id: Int, now: UInt64) {
        guard calls[id] != nil else { return }
        recorder.count("calls.remote_end_unobserved", atNanos: now)
        calls[id]?.failed = true
        endCallLocally(id, now: now)
    }

    private func markLeft(_ id: Int, local: Int, call: Call, now: UInt64) {
        var call = call
        if local == call.caller { call.callerLeft = true }
        if local == call.callee { call.calleeLeft = true }
        calls[id] = call
        if call.isOver { complete(id, now: now) }
    }

    /// Ends a call on the device side without the target (failed start, lost end push).
    private func endCallLocally(_ id: Int, now: UInt64) {
        guard var call = calls[id] else { return }
        call.callerLeft = true
        call.calleeLeft = true
        call.failed = true
        calls[id] = call
        complete(id, now: now)
    }

    private func complete(_ id: Int, now: UInt64) {
        guard let call = calls.removeValue(forKey: id) else { return }
        if let uuid = call.conversationID { callByConversation[uuid] = nil }
        for local in [call.caller, call.callee] {
            devices[local].callID = nil
            devices[local].conversation = nil
            idle.append(local)
        }
        liveActive.subtract(1, ordering: .relaxed)
        liveCompleted.add(1, ordering: .relaxed)
        recorder.count(call.failed ? "calls.failed" : "calls.completed", atNanos: now)
        if !call.failed {
            recorder.record("call.duration", micros: Int64((now - call.startIssuedNanos) / 1000), atNanos: now)
        }
        checkDrained()
    }

    private func checkDrained() {
        if arrivalsDone, calls.isEmpty, let done = onDrained {
            onDrained = nil
            done()
        }
    }

    // MARK: - HTTP

    private func request(_ method: String, _ path: String, _ body: String,
                         completion: @escaping (Result<ClientResponse, TransportError>) -> Void) {
        let request = ClientRequest(method: method, url: settings.targetURL + path,
                                    headers: ["content-type: application/json"], body: Array(body.utf8),
                                    timeoutMillis: Int(settings.actionTimeoutNanos / 1_000_000))
        client.send(request) { [self] result in
            if finished { return }
            completion(result)
        }
    }

    /// Counts transport errors by kind and non-2xx answers by status, so failures are never silent.
    private func count(_ result: Result<ClientResponse, TransportError>, at now: UInt64) {
        switch result {
        case .success(let response) where (200..<300).contains(response.status): break
        case .success(let response) where response.status == 0: recorder.count("errors.bad_response", atNanos: now)
        case .success(let response): recorder.count("errors.http_\(response.status)", atNanos: now)
        case .failure(let error): recorder.count("errors.\(error.kind)", atNanos: now)
        }
    }
}
