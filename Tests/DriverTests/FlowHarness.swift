import Determinism
import CallModel
@testable import Driver
import Scenario

/// What the fake target does with one action.
enum FakeAnswer {
    case fulfil
    case fail(String)
    case timeout
    /// Refused with an HTTP status; `alreadyEnded` when the mapping marks it so (`target.api.already_ended`).
    /// `performed`: the target did it anyway (its pushes go out), as when an earlier request already had.
    case refuse(status: Int, alreadyEnded: Bool, performed: Bool = false)
}

/// How a callee's VoIP push reaches it.
enum VoIPDelivery {
    case atOnce
    /// Lost on the way: the callee never rings.
    case never
    /// Reported after the push deadline (a slow app): iOS terminates it.
    case late
}

/// Runs one call's `FlowInterpreter` the way a worker does, without a worker: effects are collected, timers sit
/// in a wheel moved by a `ManualClock`, and a `FakeTarget` answers requests and sends the pushes a server would.
/// No sockets, no threads, no sleeps; every loop is bounded.
final class FlowHarness {
    let clock = ManualClock()
    var context: FlowContext
    var call: FlowInterpreter
    var wheel: TimerWheel<FlowTimer>
    var target = FakeTarget()
    /// Decides each action's answer (default: the target performs it).
    var answer: (ActionRequest) -> FakeAnswer = { _ in .fulfil }
    var voip = VoIPDelivery.atOnce
    /// Background pushes with these events are lost.
    var lostEvents: Set<String> = []

    private(set) var outstanding: [ActionRequest] = []
    /// Every effect the call returned, by kind.
    private(set) var seen = Seen()

    struct Seen {
        var counts: [String: Int64] = [:]
        var records: [String: [Int64]] = [:]
        var invoked: [ActionRecord] = []
        var finished: [ActionRecord] = []
        /// Every request sent, with the instant it was sent.
        var sent: [(request: ActionRequest, at: UInt64)] = []
        var viewFetches: [String] = []
        /// Polls asked for and not yet answered (the harness answers them from the fake target's views).
        var polls: [(device: Int, conversation: String)] = []
        var pollCount = 0
        /// Every poll asked for, with the instant it was asked.
        var polled: [(device: Int, conversation: String, at: UInt64)] = []
        var finals: [FinalView] = []
        var notes: [String] = []
        var completed = false
    }

    var counts: [String: Int64] { seen.counts }
    var records: [String: [Int64]] { seen.records }
    var invoked: [ActionRecord] { seen.invoked }
    var finished: [ActionRecord] { seen.finished }
    var sent: [(request: ActionRequest, at: UInt64)] { seen.sent }
    var pollCount: Int { seen.pollCount }
    var polled: [(device: Int, conversation: String, at: UInt64)] { seen.polled }
    var finals: [FinalView] { seen.finals }
    var notes: [String] { seen.notes }
    var completed: Bool { seen.completed }

    init(flow: Flow, config: FlowConfig? = nil,
         device: ConversationManager.Configuration = .init(), callerHangsUp: Bool = true) {
        var devices = DeviceModel(identities: flow.roles.indices.map { DeviceIdentity(index: $0, seed: 7) },
                                  configuration: device)
        var roles: [String: Int] = [:]
        for local in 0..<devices.count { devices.registered(local) }
        for role in flow.roles { roles[role] = devices.takeIdle() }
        let arrival = Arrival(index: 3, plannedNanos: 0, flow: 0, answerAfterNanos: 400_000_000,
                              talkNanos: 2_000_000_000, callerHangsUp: callerHangsUp)
        let config = config ?? FlowConfig(actionTimeoutNanos: 5_000_000_000, behavior: Behavior(), verifyViews: false)
        context = FlowContext(devices: devices, actionIDs: ActionIDs(worker: 1))
        call = FlowInterpreter(arrival: arrival, flow: flow, roles: roles, seed: 42, config: config,
                               now: clock.nowNanos())
        wheel = TimerWheel(tickNanos: 1_000_000, slotCount: 1024, startNanos: clock.nowNanos())
    }

    convenience init(builtin name: String, config: FlowConfig? = nil,
                     device: ConversationManager.Configuration = .init()) {
        self.init(flow: BuiltinFlows.flow(named: name)!, config: config, device: device)
    }

    var now: UInt64 { clock.nowNanos() }
    func local(_ role: String) -> Int { call.roles[role]! }
    func count(_ name: String) -> Int64 { counts[name] ?? 0 }
    /// `<step>=<outcome label>` of every finished action, in order.
    var outcomes: [String] { finished.map { "\($0.step)=\($0.action.outcome!.label)" } }

    func begin() {
        apply(call.begin(now: now, planned: now, &context))
    }

    func apply(_ effects: [FlowEffect]) {
        for effect in effects {
            switch effect {
            case .send(let request):
                seen.sent.append((request, now))
                outstanding.append(request)
            case .arm(let timer, let at): wheel.schedule(timer, at: at)
            case .count(let name, let n): seen.counts[name.name, default: 0] += n
            case .record(let name, let micros): seen.records[name.name, default: []].append(micros)
            case .invoked(let record): seen.invoked.append(record)
            case .finished(let record): seen.finished.append(record)
            case .poll(let local, let uuid):
                seen.polls.append((local, uuid))
                seen.pollCount += 1
                seen.polled.append((local, uuid, now))
            case .fetchViews(let uuids): seen.viewFetches += uuids
            case .finalView(let view): seen.finals.append(view)
            case .note(let line, _): seen.notes.append(line)
            case .completed: seen.completed = true
            case .relaunched: break
            }
        }
    }

    /// Runs the call until it completes or nothing is left to happen: answers every request, then moves the
    /// clock to the next timer. Views to verify are answered by `views` (none: the test answers them).
    func run(maxSteps: Int = 500, views: ((String) -> ConversationView?)? = nil) {
        for _ in 0..<maxSteps where !completed {
            if !outstanding.isEmpty {
                answerNext()
            } else if !seen.polls.isEmpty {
                let poll = seen.polls.removeFirst()
                let view = target.view(poll.conversation, context.devices)
                apply(call.observed(view, on: poll.device, now: now, &context))
            } else if let views, !seen.viewFetches.isEmpty {
                let uuid = seen.viewFetches.removeFirst()
                apply(call.viewFetched(uuid, views(uuid), now: now, &context))
            } else if !fireNextTimer() {
                return
            }
        }
    }

    /// Moves the clock to the wheel's next timer and fires what is due; false when no timer is armed.
    @discardableResult
    func fireNextTimer() -> Bool {
        guard let next = wheel.nextWakeNanos() else { return false }
        clock.advance(to: next)
        var due: [FlowTimer] = []
        wheel.advance(to: now, into: &due)
        for timer in due where !completed { apply(call.timerFired(timer, now: now, &context)) }
        return true
    }

    /// Takes the next request out of the queue without answering it (its answer is the test's to give).
    func holdBack() -> ActionRequest {
        outstanding.removeFirst()
    }

    func answerNext() {
        let request = outstanding.removeFirst()
        var pushes: [FakeTarget.Push] = []
        var reply: ActionAnswer
        switch answer(request) {
        case .fulfil: (reply, pushes) = target.perform(request, context.devices)
        case .fail(let reason): reply = ActionAnswer(outcome: .failed(reason: reason))
        case .timeout: reply = ActionAnswer(outcome: .timedOut)
        case .refuse(let status, let alreadyEnded, let performed):
            if performed { pushes = target.perform(request, context.devices).1 }
            reply = ActionAnswer(outcome: .failed(reason: "http_\(status)"), status: status, alreadyEnded: alreadyEnded)
            // As the worker does: a 404 or 409 for a conversation the device has seen end is "already ended".
            if call.endedAlready(request, reply, context.devices) { reply.alreadyEnded = true }
        }
        call.captured(reply.captures)
        apply(call.answered(request, reply, now: now, &context))
        for push in pushes { deliver(push) }
    }

    /// A push reaching a device, as the worker hands it over.
    func deliver(_ push: FakeTarget.Push) {
        guard !completed, let payload = ViewReader.reference.push(Array(push.json.utf8)) else { return }
        if push.voip {
            guard case let uuid? = payload.uuid, voip != .never,
                  context.devices[push.device].manager.conversations[uuid] == nil else { return }
            if voip == .late, call.waitsForPush(uuid, on: push.device) {
                apply(call.terminateApp(push.device, now: now, &context))
                return
            }
            _ = context.devices.reportIncoming(push.device, payload: payload, uuid: uuid, now: now)
            apply(call.pushReported(device: push.device, conversation: uuid, now: now, &context))
        } else {
            if let event = payload.event, lostEvents.contains(event) { return }
            if case .applied = context.devices.observeBackground(payload, on: push.device, inCall: true) {
                apply(call.deviceChanged(push.device, now: now, &context))
            }
        }
    }
}

/// A call server in a few lines: conversations with members and states, answers, and the pushes the reference
/// target sends (a VoIP push to each callee; `joined`, `ended`, `merged` and `split` background pushes).
struct FakeTarget {
    struct Push {
        var device: Int
        var voip: Bool
        var json: String
    }

    struct Conversation {
        var members: [(device: Int, state: String)] = []
        var version = 1
        var ended = false

        func state(of device: Int) -> String? { members.first { $0.device == device }?.state }

        mutating func set(_ device: Int, _ state: String) {
            if let i = members.firstIndex(where: { $0.device == device }) {
                members[i].state = state
            } else {
                members.append((device, state))
            }
            version += 1
        }
    }

    var conversations: [String: Conversation] = [:]
    /// A merge is answered with the merged conversation's view, as the reference target does; false for a server
    /// whose answer says only that it merged (the device then learns the new members some other way).
    var mergeAnswerHasView = true
    private var created = 0

    mutating func perform(_ r: ActionRequest, _ devices: DeviceModel) -> (ActionAnswer, [Push]) {
        var answer = ActionAnswer(outcome: .fulfilled)
        var pushes: [Push] = []
        let d = r.device
        switch r.op {
        case .start:
            let uuid = newConversation([(d, "joined")] + r.to.map { ($0, "ringing") })
            answer.conversation = uuid
            let caller = handleJSON(devices[d].identity.handle)
            for callee in r.to {
                pushes.append(Push(device: callee, voip: true, json: "{\"uuid\":\"\(uuid)\",\"handle\":\(caller)," +
                                   "\"capabilities\":[\"pausing\",\"merging\",\"unmerging\"]}"))
            }
        case .join:
            conversations[r.conversation]?.set(d, "joined")
            pushes += notify(r.conversation, except: d, event: "joined", devices)
        case .decline, .end:
            conversations[r.conversation]?.set(d, "left")
            pushes += endIfAlone(r.conversation, devices)
        case .pause: conversations[r.conversation]?.set(d, "held")
        case .resume: conversations[r.conversation]?.set(d, "joined")
        case .merge:
            guard let other = r.with, var second = conversations[other] else { break }
            for m in second.members where m.device != d && m.state != "left" {
                conversations[r.conversation]?.set(m.device, "joined")
                pushes.append(Push(device: m.device, voip: false, json: event("merged", other, into: r.conversation,
                                                                              view: r.conversation, devices)))
            }
            second.ended = true
            conversations[other] = second
            if mergeAnswerHasView { answer.view = view(r.conversation, devices) }
        case .unmerge:
            guard let m = r.member else { break }
            conversations[r.conversation]?.set(m, "left")
            let split = newConversation([(d, "held"), (m, "joined")])
            answer.conversation = split
            pushes.append(Push(device: m, voip: false, json: event("split", r.conversation, into: split, view: split,
                                                                   devices)))
        }
        return (answer, pushes)
    }

    private mutating func newConversation(_ members: [(Int, String)]) -> String {
        created += 1
        let uuid = "conv-\(created)"
        conversations[uuid] = Conversation(members: members.map { (device: $0.0, state: $0.1) })
        return uuid
    }

    /// A conversation lives while two members are in it; the last one is told it ended.
    private mutating func endIfAlone(_ uuid: String, _ devices: DeviceModel) -> [Push] {
        guard var c = conversations[uuid], !c.ended else { return [] }
        let remaining = c.members.filter { $0.state != "left" }
        guard remaining.count < 2 else { return [] }
        c.ended = true
        for m in remaining { c.set(m.device, "left") }
        conversations[uuid] = c
        return remaining.map { Push(device: $0.device, voip: false, json: event("ended", uuid, devices)) }
    }

    private func notify(_ uuid: String, except d: Int, event name: String, _ devices: DeviceModel) -> [Push] {
        let members = conversations[uuid]?.members ?? []
        return members.filter { $0.device != d && $0.state != "left" }.map {
            Push(device: $0.device, voip: false, json: "{\"uuid\":\"\(uuid)\",\"event\":\"\(name)\"}")
        }
    }

    private func event(_ name: String, _ uuid: String, into: String? = nil, view: String? = nil,
                       _ devices: DeviceModel) -> String {
        var json = "{\"uuid\":\"\(uuid)\",\"event\":\"\(name)\""
        if let into { json += ",\"into\":\"\(into)\"" }
        if let view { json += ",\"conversation\":" + viewJSON(view, devices) }
        return json + "}"
    }

    /// The reference protocol's conversation JSON.
    func viewJSON(_ uuid: String, _ devices: DeviceModel) -> String {
        let c = conversations[uuid] ?? Conversation()
        let members = c.members.map { m in
            "{\"device\":\"\(devices[m.device].identity.id)\",\"state\":\"\(m.state)\"," +
                "\"handle\":\(handleJSON(devices[m.device].identity.handle))}"
        }
        return "{\"id\":\"\(uuid)\",\"version\":\(c.version),\"ended\":\(c.ended)," +
            "\"members\":[\(members.joined(separator: ","))]}"
    }

    func view(_ uuid: String, _ devices: DeviceModel) -> ConversationView? {
        ViewReader.reference.response(Array(viewJSON(uuid, devices).utf8))
    }
}
