import CallModel
import Foundation
import Metrics
import Results
import Scenario
import Transport

/// Applying a call's effects: requests to the target, timers on the wheel, figures in the recorder and lines in
/// the journal. Answers go back to the call's interpreter (all on the worker's queue).
extension Worker {
    func apply(_ effects: [FlowEffect], call id: Int, now: UInt64) {
        var armed = false
        for effect in effects {
            switch effect {
            case .send(let request): perform(request)
            case .arm(let timer, let at):
                schedule(.flow(call: id, timer), at: at)
                armed = true
            case .count(let name, let n): recorder.count(name, by: n, atNanos: now)
            case .record(let name, let micros): recorder.record(name, micros: micros, atNanos: now)
            case .invoked(let record): invoked(record, now: now)
            case .finished(let record): finished(record, now: now)
            case .poll(let local, let uuid): poll(uuid, for: local, call: id)
            case .fetchViews(let uuids): fetchViews(uuids, call: id)
            case .finalView(let view): writeFinal(view, now: now)
            case .note(let line, let limit): books.note(line, limit: limit)
            case .completed: complete(id)
            }
        }
        if armed { rearm() }
    }

    /// Sends one action to the target and hands its answer to the call (or, when a slow media setup fault holds
    /// a join back, to the wheel first).
    func perform(_ request: ActionRequest) {
        let id = request.call
        guard let run = calls[id] else { return }
        let vars = request.op == .start ? startVars(request, run) : memberVars(request, run)
        socketUserActs(request.device)
        send(request.op.rawValue, vars, device: request.device, call: id) { [self] result, endpoint in
            let now = clock.nowNanos()
            var answer = readAnswer(request, result, endpoint)
            if let run = calls[id], run.endedAlready(request, answer, devices) {
                answer.alreadyEnded = true  // not an error: the conversation had ended
            } else {
                count(result, endpoint: endpoint, badBody: answer.outcome == .failed(reason: "bad_response"), at: now)
            }
            calls[id]?.captured(answer.captures)
            if request.kind == .join, answer.outcome == .fulfilled, let fault = mediaFault(request.device, now: now) {
                switch fault {
                case .failure:
                    answer.outcome = .failed(reason: "media_setup_failed")
                case .delay(let nanos):
                    // Slow media setup: the join is fulfilled later (its fulfillment time grows).
                    schedule(.flow(call: id, .lateAnswer(request, answer)), at: now + nanos)
                    rearm()
                    return
                }
            }
            guard calls[id] != nil else { return }
            apply(calls[id]!.answered(request, answer, now: now, &context), call: id, now: now)
        }
    }

    private func startVars(_ request: ActionRequest, _ run: FlowInterpreter) -> [String: String] {
        let local = request.device
        let handles = request.to.map { devices[$0].identity.handle }
        var vars = deviceVars(local).merging(run.known.captures) { a, _ in a }
        vars["to.handles"] = "[" + handles.map(handleJSON).joined(separator: ",") + "]"
        vars["to.ids"] = "[" + request.to.map { "\"\(devices[$0].identity.id)\"" }.joined(separator: ",") + "]"
        if let first = request.to.first {
            vars["to.id"] = devices[first].identity.id
            vars["to.handle"] = devices[first].identity.handle.value
        }
        vars["video"] = String(request.video)
        vars["capabilities"] = "[" + devices[local].manager.configuration.supportedCapabilities.names
            .map { "\"\($0)\"" }.joined(separator: ",") + "]"
        return vars
    }

    private func memberVars(_ request: ActionRequest, _ run: FlowInterpreter) -> [String: String] {
        let (local, uuid, reason) = (request.device, request.conversation, request.reason)
        var vars = deviceVars(local).merging(run.known.captures) { a, _ in a }
        vars["conversation.id"] = uuid
        vars["reason"] = reason ?? ""
        vars["reason.json"] = reason.map { "\"\($0)\"" } ?? "null"
        vars["device.reported_at"] = reportedAtMillis(local, uuid).map(String.init) ?? "null"
        vars["push.sent_at"] = devices[local].pushSentAt[uuid].map(String.init) ?? "null"
        if let other = request.with { vars["with.id"] = other }
        if let m = request.member {
            vars["member.id"] = devices[m].identity.id
            vars["member.handle"] = devices[m].identity.handle.value
        }
        return vars
    }

    /// The answer as the flow needs it: outcome, captures and the views the mapping reads from it. An expected
    /// status whose body lacks what the action must return (a start's conversation, an unmerge's split, a view
    /// the mapping says every response carries) is a `bad_response`.
    func readAnswer(_ request: ActionRequest, _ result: Result<ClientResponse, TransportError>,
                    _ endpoint: APIMapping.Endpoint?) -> ActionAnswer {
        var answer = ActionAnswer(outcome: outcome(of: result, endpoint))
        if answer.outcome != .fulfilled, case .success(let response) = result, response.status > 0 {
            answer.status = response.status
            answer.alreadyEnded = request.kind == .end && (api.mapping.alreadyEnded.contains(response.status)
                || response.header(SocketReplyReader.alreadyEndedHeader) != nil)
        }
        guard answer.outcome == .fulfilled, case .success(let response) = result, let endpoint else { return answer }
        answer.captures = TargetAPI.captures(endpoint, from: response.body)
        for name in endpoint.captures.keys {
            // Per capture, so a path that never matches is named (first-contact diagnostics).
            let matched = answer.captures[name] != nil
            recorder.count(.apiCapture(name, matched: matched), atNanos: clock.nowNanos())
        }
        let reader = api.reader
        // One parse of the body for both views.
        let views = reader.answer(response.body, split: request.op != .start)
        if reader.mapping != nil {
            answer.view = views.view
            if answer.view == nil, reader.mapping?.required == true { answer.outcome = .failed(reason: "bad_response") }
        }
        if request.op == .start {
            answer.conversation = answer.captures["conversation.id"] ?? answer.view?.uuid
            if answer.conversation == nil { answer.outcome = .failed(reason: "bad_response") }
            return answer
        }
        answer.split = views.split
        answer.conversation = answer.captures["split.id"] ?? answer.split?.uuid
        if request.kind == .unmerge && answer.conversation == nil { answer.outcome = .failed(reason: "bad_response") }
        return answer
    }

    func outcome(of result: Result<ClientResponse, TransportError>, _ endpoint: APIMapping.Endpoint?)
        -> ActionOutcome {
        switch result {
        case .success(let response) where endpoint?.accepts(response.status) == true: return .fulfilled
        case .success(let response): return .failed(reason: "http_\(response.status)")
        case .failure(.timeout): return .timedOut
        case .failure(let error): return .failed(reason: error.kind)
        }
    }

    /// A device polls the target's view of a conversation its flow waits on (the mapped `get`, counted like any
    /// request; `observe.polls` and, for first-contact diagnostics, `observe.polls_not_found`).
    private func poll(_ uuid: String, for local: Int, call id: Int) {
        var vars = deviceVars(local)
        vars["conversation.id"] = uuid
        send("get", vars, device: local, call: id) { [self] result, endpoint in
            let now = clock.nowNanos()
            count(result, endpoint: endpoint, badBody: false, at: now)
            recorder.count(.observePolls, atNanos: now)
            var view: ConversationView?
            if case .success(let response) = result {
                if response.status == 404 { recorder.count(.observePollsNotFound, atNanos: now) }
                if endpoint?.accepts(response.status) == true { view = api.reader.response(response.body) }
            }
            guard calls[id] != nil else { return }
            apply(calls[id]!.observed(view, on: local, now: now, &context), call: id, now: now)
        }
    }

    /// The target's view of each conversation (its mapped `get`), for the call's end-of-flow comparison.
    private func fetchViews(_ uuids: [String], call id: Int) {
        for uuid in uuids {
            send("get", ["conversation.id": uuid], call: id, verification: true) { [self] result, endpoint in
                let now = clock.nowNanos()
                count(result, endpoint: endpoint, badBody: false, at: now)
                guard calls[id] != nil else { return }
                var view: ConversationView?
                if case .success(let response) = result, endpoint?.accepts(response.status) == true {
                    view = api.reader.response(response.body)
                }
                apply(calls[id]!.viewFetched(uuid, view, now: now, &context), call: id, now: now)
            }
        }
    }

    // MARK: - HTTP

    /// The template variables every request of a device has.
    func deviceVars(_ local: Int) -> [String: String] {
        let identity = devices[local].identity
        return ["device.id": identity.id, "device.handle": identity.handle.value,
                "device.name": identity.handle.displayName, "device.token": identity.apnsToken,
                "device.handle.json": handleJSON(identity.handle), "device.time": String(deviceTimeMillis(local))]
    }

    /// Sends operation `op` of the target's API; `completion` gets the endpoint used (nil when the mapping lacks it).
    /// A `verification` request is the harness's own (the final-view fetch), not a device's: it keeps pooled
    /// connections even inside a network fault window.
    func send(_ op: String, _ vars: [String: String], device local: Int? = nil, call: Int? = nil,
              verification: Bool = false,
              completion: @escaping (Result<ClientResponse, TransportError>, APIMapping.Endpoint?) -> Void) {
        nonisolated(unsafe) var completion = completion  // runs on this worker's queue, like everything here
        if let local, isOffline(local) {
            // An offline phone reaches nobody (a device fault): the request fails like a dead network.
            recorder.count(.fault("device.offline_request"), atNanos: clock.nowNanos())
            loop.execute { completion(.failure(.connect("device offline (fault window)")), nil) }
            return
        }
        if let local, !verification, sendOverSocket(op, vars, device: local, call: call, completion: completion) {
            return
        }
        let timeout = Int(settings.actionTimeoutNanos / 1_000_000)
        let baseURL = local.flatMap { networkRoute($0) } ?? settings.targetURL
        guard let (parts, missing) = api.request(op, vars: vars, baseURL: baseURL, timeoutMillis: timeout)
        else {
            completion(.failure(.other(code: -1, message: "target.api has no '\(op)' endpoint")), nil)
            return
        }
        if !missing.isEmpty { recorder.count(.apiMissingVariable, atNanos: clock.nowNanos()) }
        var request = ClientRequest(method: parts.method, url: parts.url, headers: parts.headers,
                                    body: Array(parts.body.utf8), timeoutMillis: timeout)
        request.collectsHeaders = false  // flows read status and body only
        request.freshConnection = !verification && needsFreshConnection()
        completion = traced(completion, call: call, device: local, op: op, method: parts.method, url: parts.url,
                            body: parts.body)
        loop.client.send(request) { [self] result in
            if finished { return }
            completion(result, parts.endpoint)
        }
    }
}

extension Worker {
    /// `completion`, writing the exchange to trace.jsonl first when `--trace` covers `call` (HTTP requests and
    /// socket actions alike: a socket action's method is `WS`).
    func traced(_ completion: @escaping (Result<ClientResponse, TransportError>, APIMapping.Endpoint?) -> Void,
                call: Int?, device local: Int?, op: String, method: String, url: String, body: String)
        -> (Result<ClientResponse, TransportError>, APIMapping.Endpoint?) -> Void {
        guard let trace = settings.trace, let call, trace.traces(call) else { return completion }
        let device = local.map { devices[$0].identity.id } ?? ""
        return { [self] result, endpoint in
            var (status, response, error): (Int, [UInt8], String?) = (0, [], nil)
            switch result {
            case .success(let answer): (status, response) = (answer.status, answer.body)
            case .failure(let failure): error = failure.kind
            }
            trace.exchange(call: call, device: device, op: op, method: method, url: url, body: body, status: status,
                           response: response, error: error, t: clock.nowNanos() &- books.runStart)
            completion(result, endpoint)
        }
    }
}

func handleJSON(_ h: Handle) -> String {
    "{\"kind\":\"\(h.kind.rawValue)\",\"value\":\"\(h.value)\",\"displayName\":\"\(h.displayName)\"}"
}
