import CallModel
import Foundation
import Metrics
import RunFormats
import Scenario
import Transport

/// What arrives on a device's socket (events into the observation seam, replies to its actions) and the actions
/// it sends there. Runs on the worker's queue.
extension Worker {
    /// A server→device text message: a reply when it echoes the id of an action in flight, else an event read
    /// like a background push.
    func socketMessage(_ bytes: [UInt8], from local: Int, now: UInt64) {
        guard let sockets else { return }
        recorder.count(.socketMessages, atNanos: now)
        if let trace = settings.trace, let call = devices[local].callID, trace.traces(call) {
            trace.push(call: call, device: devices[local].identity.id, pushType: "socket", payload: bytes,
                       t: now &- books.runStart)
        }
        let payload: PushPayload?
        switch sockets.messages.classify(bytes, awaiting: { sockets.outgoing[$0] != nil }) {
        case .unreadable:
            recorder.count(.observed(.socketEvents, "bad_payload"), atNanos: now)
            return
        case .ignored:
            recorder.count(.socketEventsIgnored, atNanos: now)
            return
        case .reply(let id, let response):
            guard let outgoing = sockets.outgoing.removeValue(forKey: id) else { return }
            outgoing.completion(.success(response), outgoing.endpoint)
            return
        case .event(let read):
            payload = read
        }
        if let sent = payload?.sentAt {
            let nowMillis = Int(Date().timeIntervalSince1970 * 1000)
            recorder.record(.socketEventDelivery, micros: Int64(max(0, nowMillis - sent)) * 1000,
                            atNanos: now)
        }
        if let journal = books.journal, let uuid = payload?.uuid {
            // Like a push: some past state of the server, which the history checker weighs as such.
            let t = now &- books.runStart, device = devices[local].identity.id
            journal.history {
                HistoryText.push(t: t, device: device, event: payload?.event ?? "unknown", conversation: uuid,
                                 into: payload?.into, view: payload?.view, into: &$0)
            }
        }
        if let uuid = payload?.uuid {
            sockets.lifecycle.heard(local, about: uuid, now: now)
            if let into = payload?.into, into != uuid { sockets.lifecycle.heard(local, about: into, now: now) }
        }
        receiveBackground(payload, local: local, now: now, counters: .socketEvents)
    }

    /// Sends `op` over the device's socket when the mapping puts it there: at once when the socket is open,
    /// else after it opens (the app opens it for the user's action). The reply comes back through `completion`
    /// as an HTTP answer would; no reply within `action_timeout` is a timeout. False when `op` goes over HTTP.
    func sendOverSocket(_ op: String, _ vars: [String: String], device local: Int, call: Int? = nil,
                        completion: @escaping (Result<ClientResponse, TransportError>, APIMapping.Endpoint?) -> Void)
        -> Bool {
        guard let sockets, let template = sockets.mapping.actions[op] else { return false }
        let now = clock.nowNanos()
        let id = sockets.newRequestID(worker: index)
        var vars = vars
        vars["request.id"] = id
        var missing: [String] = []
        let text = TargetAPI.render(template, vars, &missing)
        if !missing.isEmpty { recorder.count(.apiMissingVariable, atNanos: now) }
        let endpoint = api.mapping.endpoints[op] ?? (op == "decline" ? api.mapping.endpoints["end"] : nil)
            ?? APIMapping.Endpoint(method: "WS", path: "")
        let completion = traced(completion, call: call, device: local, op: op, method: "WS",
                                url: sockets.mapping.url, body: text)
        sockets.outgoing[id] = DeviceSockets.Outgoing(device: local, text: text, endpoint: endpoint,
                                                      completion: completion)
        schedule(.socketReply(id), at: now + settings.actionTimeoutNanos)
        rearm()
        recorder.count(.socketActions(op), atNanos: now)
        if sockets.lifecycle[local].phase == .open, let socket = sockets.socket[local] {
            sockets.pool.send(socket, text: text)
        } else {
            recorder.count(.socketActionsQueued, atNanos: now)
            sockets.queued[local, default: []].append(id)
            socketUserActs(local)
        }
        return true
    }

    /// No reply within `action_timeout`: the action timed out (queued or sent).
    func socketReplyTimedOut(_ id: String) {
        guard let sockets, let outgoing = sockets.outgoing.removeValue(forKey: id) else { return }
        sockets.queued[outgoing.device]?.removeAll { $0 == id }
        outgoing.completion(.failure(.timeout), outgoing.endpoint)
    }

    /// The run stops: sockets still open are counted as open at stop, then the pool is shut down (its last
    /// `.closed` events are not counted again).
    func stopSockets() {
        guard let sockets else { return }
        sockets.lifecycle.stop()
        applySocketEffects()
        sockets.stopping = true
        sockets.pool.shutDown()
    }
}
