import CallModel
import Foundation
import HTTPServer
import Synchronization

/// The embedded call server callstorm tests against by default (docs/PROTOCOL.md). Correct and atomic: every
/// change to a conversation happens under one lock and bumps its version. Pushes go to the push gateway through
/// the APNs provider API.
public final class ReferenceTarget: HTTPHandler {
    public struct Configuration: Sendable {
        /// Base URL of the APNs gateway, e.g. `http://127.0.0.1:2197`.
        public var gatewayURL: String
        public var bundleID: String
        public init(gatewayURL: String, bundleID: String = "com.example.callstorm") {
            self.gatewayURL = gatewayURL
            self.bundleID = bundleID
        }
    }

    private struct State {
        var devices: [String: RegisteredDevice] = [:]
        var deviceByHandle: [String: String] = [:]
        var conversations: [String: ServerConversation] = [:]
    }

    private let state = Mutex(State())
    private let pusher: PushSender
    private let decoder = JSONDecoder()

    public init(configuration: Configuration) {
        pusher = PushSender(gatewayURL: configuration.gatewayURL, bundleID: configuration.bundleID)
    }

    /// Stops the push client. Call once, after the HTTP server stopped.
    public func close() { pusher.close() }

    public var pushesSent: Int { pusher.sent.load(ordering: .relaxed) }
    public var pushesFailed: Int { pusher.failed.load(ordering: .relaxed) }

    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        respond(route(request))
    }

    func route(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0] == "v1" else { return error(404, "no such endpoint: \(path)") }
        switch (request.method, parts.count, parts[1]) {
        case ("POST", 2, "devices"): return register(request)
        case ("POST", 2, "conversations"): return start(request)
        case ("GET", 3, "conversations"): return get(String(parts[2]))
        case ("POST", 4, "conversations"):
            switch parts[3] {
            case "join": return join(String(parts[2]), request)
            case "end": return end(String(parts[2]), request)
            default: return error(404, "no such conversation action: \(parts[3])")
            }
        case ("GET", 2, "health"): return .json(200, "{\"ok\":true}")
        default: return error(404, "no such endpoint: \(request.method) \(path)")
        }
    }

    // MARK: - Endpoints

    private func register(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = try? decoder.decode(RegisterBody.self, from: Data(request.body)) else {
            return error(400, "body must be {\"id\", \"handle\": {\"kind\", \"value\", \"displayName\"}, \"apnsToken\"}")
        }
        state.withLock { s in
            if let old = s.devices[body.id] { s.deviceByHandle[old.handle.value] = nil }
            s.devices[body.id] = RegisteredDevice(id: body.id, handle: body.handle, apnsToken: body.apnsToken)
            s.deviceByHandle[body.handle.value] = body.id
        }
        return .json(201, "{\"id\":\(JSONText.quote(body.id))}")
    }

    private func start(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = try? decoder.decode(StartBody.self, from: Data(request.body)), !body.handles.isEmpty else {
            return error(400, "body must be {\"caller\", \"handles\": [handle, ...], \"video\"}")
        }
        let id = UUID().uuidString.lowercased()
        let result: Result<(ServerConversation, [RegisteredDevice], Handle), Refusal> = state.withLock { s in
            guard let caller = s.devices[body.caller] else { return .failure(refusal(404, "unknown caller \(body.caller)")) }
            var members = [ServerMember(device: caller.id, handle: caller.handle, state: .joined)]
            var callees: [RegisteredDevice] = []
            for handle in body.handles {
                guard let deviceID = s.deviceByHandle[handle.value], let device = s.devices[deviceID] else {
                    return .failure(refusal(404, "no device registered for handle \(handle.value)"))
                }
                members.append(ServerMember(device: device.id, handle: device.handle, state: .ringing))
                callees.append(device)
            }
            let conversation = ServerConversation(id: id, members: members, video: body.video ?? false)
            s.conversations[id] = conversation
            return .success((conversation, callees, caller.handle))
        }
        switch result {
        case .failure(let refusal): return refusal.response
        case .success(let (conversation, callees, callerHandle)):
            let sentAt = Int64(Date().timeIntervalSince1970 * 1000)
            let caps = conversation.video ? "[\"video\"]" : "[]"
            let payload = "{\"uuid\":\(JSONText.quote(id)),\"handle\":\(handleJSON(callerHandle))," +
                "\"capabilities\":\(caps),\"sentAt\":\(sentAt)}"
            for callee in callees { pusher.send(.voip, token: callee.apnsToken, payload: payload) }
            return .json(201, conversation.json())
        }
    }

    private func get(_ id: String) -> HTTPResponse {
        guard let conversation = state.withLock({ $0.conversations[id] }) else {
            return error(404, "unknown conversation \(id)")
        }
        return .json(200, conversation.json())
    }

    private func join(_ id: String, _ request: HTTPRequest) -> HTTPResponse {
        change(id, request, event: "joined") { conversation, index in
            guard conversation.members[index].state == .ringing else {
                return "member \(conversation.members[index].device) is \(conversation.members[index].state.rawValue)"
            }
            conversation.members[index].state = .joined
            return nil
        }
    }

    private func end(_ id: String, _ request: HTTPRequest) -> HTTPResponse {
        change(id, request, event: "ended") { conversation, index in
            guard conversation.members[index].state != .left else { return "member already left" }
            conversation.members[index].state = .left
            // A conversation lives while two members are in it (joined or still ringing).
            if conversation.members.filter({ $0.state != .left }).count < 2 {
                conversation.ended = true
                for i in conversation.members.indices { conversation.members[i].state = .left }
            }
            return nil
        }
    }

    /// Applies one member's change atomically, bumps the version, and tells the other members by background push.
    private func change(_ id: String, _ request: HTTPRequest, event: String,
                        _ apply: (inout ServerConversation, Int) -> String?) -> HTTPResponse {
        guard let body = try? decoder.decode(MemberBody.self, from: Data(request.body)) else {
            return error(400, "body must be {\"device\"}")
        }
        let outcome: Result<(ServerConversation, [String]), Refusal> = state.withLock { s in
            guard var conversation = s.conversations[id] else { return .failure(refusal(404, "unknown conversation \(id)")) }
            if conversation.ended { return .failure(refusal(409, "conversation \(id) has ended", code: "ended")) }
            guard let index = conversation.members.firstIndex(where: { $0.device == body.device }) else {
                return .failure(refusal(403, "device \(body.device) is not a member of \(id)"))
            }
            let before = conversation.members.map(\.state)
            if let problem = apply(&conversation, index) { return .failure(refusal(409, problem, code: "state")) }
            conversation.version += 1
            s.conversations[id] = conversation
            // Tell every other member who was still in the conversation before this change.
            let tokens = conversation.members.indices.compactMap { i -> String? in
                guard i != index, before[i] != .left else { return nil }
                return s.devices[conversation.members[i].device]?.apnsToken
            }
            return .success((conversation, tokens))
        }
        switch outcome {
        case .failure(let refusal): return refusal.response
        case .success(let (conversation, tokens)):
            let payload = "{\"aps\":{\"content-available\":1},\"uuid\":\(JSONText.quote(id)),\"event\":\"\(event)\"," +
                "\"device\":\(JSONText.quote(body.device)),\"version\":\(conversation.version)," +
                "\"ended\":\(conversation.ended)}"
            for token in tokens { pusher.send(.background, token: token, payload: payload) }
            return .json(200, conversation.json())
        }
    }

    /// A refusal decided under the lock, answered after it.
    private struct Refusal: Error {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    private func refusal(_ status: Int, _ message: String, code: String? = nil) -> Refusal {
        Refusal(error(status, message, code: code))
    }

    private func error(_ status: Int, _ message: String, code: String? = nil) -> HTTPResponse {
        var body = "{\"error\":\(JSONText.quote(message))"
        if let code { body += ",\"code\":\(JSONText.quote(code))" }
        return .json(status, body + "}")
    }
}
