import CallModel
import Foundation

/// Reads the reference protocol's conversation JSON (responses and push payloads) into server views.
enum ViewDecoder {
    struct MemberJSON: Decodable {
        let device: String
        let state: String
        let handle: Handle
    }

    struct ConversationJSON: Decodable {
        let id: String
        let version: Int
        let ended: Bool?
        let state: String?
        let members: [MemberJSON]

        var view: ConversationView {
            ConversationView(uuid: id, version: version, ended: ended ?? (state == "left"),
                             members: members.map { .init(device: $0.device, handle: $0.handle, state: $0.state) })
        }
    }

    private struct SplitJSON: Decodable { let split: ConversationJSON? }

    /// A push's payload: what happened, to which conversation, and the conversation it is about now.
    struct PushJSON: Decodable {
        struct PushHandle: Decodable {
            let kind: String?
            let value: String?
            let displayName: String?
        }

        let uuid: String?
        let handle: PushHandle?
        let capabilities: [String]?
        let event: String?
        let device: String?
        let version: Int?
        let ended: Bool?
        let reason: String?
        let into: String?
        let conversation: ConversationJSON?
        /// The target's clock (epoch ms) when it sent the push, when it says (the reference target does).
        var sentAt: Int? = nil
    }

    // Read with JSONLite (the Decodable conformances above document the shapes and stay for tests and
    // mappings); the rules are JSONDecoder's: a required field missing or mistyped, or an optional one present
    // with the wrong type, fails the whole document.

    static func conversation(_ bytes: [UInt8]) -> ConversationView? {
        JSONLite.parse(bytes).flatMap(ConversationJSON.init(json:))?.view
    }

    static func split(_ bytes: [UInt8]) -> ConversationView? {
        guard let root = JSONLite.parse(bytes), case .object = root else { return nil }
        let split = JSONField(root["split"], ConversationJSON.init(json:))
        return split.value?.view
    }

    static func push(_ bytes: [UInt8]) -> PushJSON? {
        JSONLite.parse(bytes).flatMap(PushJSON.init(json:))
    }

    static func handle(_ json: JSONLite.Value) -> Handle? {
        guard let kind = json["kind"]?.stringValue.flatMap(Handle.Kind.init(rawValue:)),
              let value = json["value"]?.stringValue, let displayName = json["displayName"]?.stringValue else {
            return nil
        }
        return Handle(kind: kind, value: value, displayName: displayName)
    }
}

extension ViewDecoder.MemberJSON {
    init?(json: JSONLite.Value) {
        guard let device = json["device"]?.stringValue, let state = json["state"]?.stringValue,
              let handle = json["handle"].flatMap(ViewDecoder.handle) else { return nil }
        self.init(device: device, state: state, handle: handle)
    }
}

extension ViewDecoder.ConversationJSON {
    init?(json: JSONLite.Value) {
        guard case .object = json, let id = json["id"]?.stringValue, let version = json["version"]?.intValue,
              let rawMembers = json["members"]?.arrayValue else { return nil }
        let ended = JSONField(json["ended"]) { $0.boolValue }
        let state = JSONField(json["state"]) { $0.stringValue }
        if ended.isMismatch || state.isMismatch { return nil }
        var members: [ViewDecoder.MemberJSON] = []
        members.reserveCapacity(rawMembers.count)
        for raw in rawMembers {
            guard let member = ViewDecoder.MemberJSON(json: raw) else { return nil }
            members.append(member)
        }
        self.init(id: id, version: version, ended: ended.value, state: state.value, members: members)
    }
}

extension ViewDecoder.PushJSON {
    init?(json: JSONLite.Value) {
        guard case .object = json else { return nil }
        let uuid = JSONField(json["uuid"]) { $0.stringValue }
        let handle = JSONField(json["handle"]) { raw -> PushHandle? in
            guard case .object = raw else { return nil }
            let kind = JSONField(raw["kind"]) { $0.stringValue }
            let value = JSONField(raw["value"]) { $0.stringValue }
            let name = JSONField(raw["displayName"]) { $0.stringValue }
            if kind.isMismatch || value.isMismatch || name.isMismatch { return nil }
            return PushHandle(kind: kind.value, value: value.value, displayName: name.value)
        }
        let capabilities = JSONField(json["capabilities"]) { raw -> [String]? in
            guard let items = raw.arrayValue else { return nil }
            var strings: [String] = []
            for item in items {
                guard let s = item.stringValue else { return nil }
                strings.append(s)
            }
            return strings
        }
        let event = JSONField(json["event"]) { $0.stringValue }
        let device = JSONField(json["device"]) { $0.stringValue }
        let version = JSONField(json["version"]) { $0.intValue }
        let ended = JSONField(json["ended"]) { $0.boolValue }
        let reason = JSONField(json["reason"]) { $0.stringValue }
        let into = JSONField(json["into"]) { $0.stringValue }
        let conversation = JSONField(json["conversation"], ViewDecoder.ConversationJSON.init(json:))
        if uuid.isMismatch || handle.isMismatch || capabilities.isMismatch || event.isMismatch
            || device.isMismatch || version.isMismatch || ended.isMismatch || reason.isMismatch || into.isMismatch
            || conversation.isMismatch {
            return nil
        }
        self.init(uuid: uuid.value, handle: handle.value, capabilities: capabilities.value, event: event.value,
                  device: device.value, version: version.value, ended: ended.value, reason: reason.value,
                  into: into.value, conversation: conversation.value, sentAt: json["sentAt"]?.intValue)
    }
}
