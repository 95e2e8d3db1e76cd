import CallModel
import Scenario
import TextEscaping

extension ViewReader {
    /// A push's payload through the mapping's push fields; nil when it is not JSON or a mapped field has the
    /// wrong type.
    func push(_ bytes: [UInt8]) -> PushPayload? {
        guard let root = JSONLite.parse(bytes) else { return nil }
        return push(root: root)
    }

    /// The same for a document already parsed (a socket message, read once for its reply id and its event).
    func push(root: JSONLite.Value) -> PushPayload? {
        guard case .object = root else { return nil }
        func field<T>(_ name: PushField, _ read: (JSONLite.Value) -> T?) -> JSONField<T> {
            JSONField(pushPath(name)?.value(in: root), read)
        }
        let uuid = field(.conversation) { $0.stringValue }
        let event = field(.event) { $0.stringValue }
        let caller = field(.handle, Self.pushHandle)
        let capabilities = field(.capabilities, Self.strings)
        let version = field(.version) { $0.intValue }
        let reason = field(.reason) { $0.stringValue }
        let into = field(.into) { $0.stringValue }
        let view = field(.view) { self.view(in: $0) }
        if uuid.isMismatch || event.isMismatch || caller.isMismatch || capabilities.isMismatch
            || version.isMismatch || reason.isMismatch || into.isMismatch || view.isMismatch {
            return nil
        }
        var word = event.value
        if let raw = word { word = Self.word(raw, push) }
        return PushPayload(uuid: uuid.value, caller: caller.value ?? nil,
                           capabilities: capabilities.value.map { CapabilityWords.lck($0, push.capabilityWords) },
                           event: word, version: version.value, reason: reason.value, into: into.value,
                           view: view.value, sentAt: pushPath(.sentAt)?.value(in: root)?.intValue)
    }

    /// The driver's word for a server's event word: `ended`, `joined`, `merged`, `split`, or the word itself.
    private static func word(_ raw: String, _ push: APIMapping.PushFields) -> String {
        if push.ended.contains(raw) { return "ended" }
        if push.joined.contains(raw) { return "joined" }
        if push.merged.contains(raw) { return "merged" }
        if push.split.contains(raw) { return "split" }
        return raw
    }

    /// A caller's handle in a push: a string, or an object whose fields are each optional (nil inside when it
    /// has no value, which is not a type error).
    private static func pushHandle(_ raw: JSONLite.Value) -> Handle?? {
        if let value = raw.stringValue { return .some(Handle(kind: .generic, value: value, displayName: value)) }
        guard case .object = raw else { return nil }
        let kind = JSONField(raw["kind"]) { $0.stringValue }
        let value = JSONField(raw["value"]) { $0.stringValue }
        let name = JSONField(raw["displayName"]) { $0.stringValue }
        if kind.isMismatch || value.isMismatch || name.isMismatch { return nil }
        guard let text = value.value else { return .some(nil) }
        return .some(Handle(kind: kind.value.flatMap(Handle.Kind.init(rawValue:)) ?? .generic, value: text,
                            displayName: name.value ?? text))
    }

    static func strings(_ raw: JSONLite.Value) -> [String]? {
        guard let items = raw.arrayValue else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for item in items {
            guard let s = item.stringValue else { return nil }
            strings.append(s)
        }
        return strings
    }
}

extension JSONPath {
    /// The value at this path in a JSONLite document, or nil when a step finds nothing.
    func value(in json: JSONLite.Value) -> JSONLite.Value? {
        var current = json
        for step in steps {
            switch step {
            case .key(let key):
                guard let next = current[key] else { return nil }
                current = next
            case .index(let i):
                guard let items = current.arrayValue, i >= 0, i < items.count else { return nil }
                current = items[i]
            }
        }
        return current
    }
}
