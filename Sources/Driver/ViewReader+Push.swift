import CallModel
import PushModel
import Scenario
import TextEscaping

/// Where a push mapping's fields lie in a payload (`APIMapping.PushFields`, paths from the document's root).
struct PushSlots: Sendable {
    let root: JSONPattern.Slot
    let conversation: JSONPattern.Slot
    let event: JSONPattern.Slot
    let handle: HandleSlots?
    let capabilities: StringsSlots?
    let version: JSONPattern.Slot?
    let reason: JSONPattern.Slot?
    let into: JSONPattern.Slot?
    let sentAt: JSONPattern.Slot?
    let view: ViewSlots?

    init(_ fields: APIMapping.PushFields, view mapping: ViewMapping?, into pattern: inout JSONPattern) {
        func at(_ path: String?) -> JSONPattern.Slot? { path.map { pattern.capture(ViewSlots.steps($0)) } }
        root = pattern.capture([])
        conversation = pattern.capture(ViewSlots.steps(fields.conversation))
        event = pattern.capture(ViewSlots.steps(fields.event))
        handle = fields.handle.map { HandleSlots(ViewSlots.steps($0), into: &pattern) }
        capabilities = fields.capabilities.map { StringsSlots(ViewSlots.steps($0), into: &pattern) }
        (version, reason, into, sentAt) = (at(fields.version), at(fields.reason), at(fields.into), at(fields.sentAt))
        view = fields.view.map { ViewSlots(mapping, at: ViewSlots.steps($0), into: &pattern) }
    }
}

extension ViewReader {
    /// A push's payload through the mapping's push fields; nil when it is not JSON or a mapped field has the
    /// wrong type.
    func push(_ bytes: [UInt8]) -> PushPayload? {
        guard let scan = JSONScan(bytes, pushes) else { return nil }
        return push(scan, pushSlots)
    }

    /// A push's payload, from the gateway's scan when it made one with this reader's pattern (`payloadPattern`
    /// of the sink, built from the same mapping, so the slots are the same), else from its bytes.
    func push(_ push: APNsPush) -> PushPayload? {
        guard let scanned = push.scanned else { return self.push(push.payload) }
        return scanned.scan.flatMap { self.push($0, pushSlots) }
    }

    /// The same for a document already scanned with `slots` in its pattern (a socket message, read once for its
    /// reply id and its event as well).
    func push(_ scan: JSONScan, _ slots: PushSlots) -> PushPayload? {
        guard scan.kind(slots.root) == .object else { return nil }
        let uuid = scan.field(slots.conversation) { scan.string($0) }
        let event = scan.field(slots.event) { scan.string($0) }
        let caller = scan.field(slots.handle?.root) { _ in slots.handle.flatMap { Self.pushHandle($0, scan) } }
        let capabilities = scan.field(slots.capabilities?.list) { _ in slots.capabilities?.read(scan) }
        let version = scan.field(slots.version) { scan.int($0) }
        let reason = scan.field(slots.reason) { scan.string($0) }
        let into = scan.field(slots.into) { scan.string($0) }
        let view = scan.field(slots.view?.root) { _ in slots.view.flatMap { self.view($0, in: scan) } }
        if uuid.isMismatch || event.isMismatch || caller.isMismatch || capabilities.isMismatch
            || version.isMismatch || reason.isMismatch || into.isMismatch || view.isMismatch {
            return nil
        }
        var word = event.value
        if let raw = word { word = Self.word(raw, push) }
        return PushPayload(uuid: uuid.value, caller: caller.value ?? nil,
                           capabilities: capabilities.value.map { CapabilityWords.lck($0, push.capabilityWords) },
                           event: word, version: version.value, reason: reason.value, into: into.value,
                           view: view.value, sentAt: slots.sentAt.flatMap { scan.int($0) })
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
    private static func pushHandle(_ slots: HandleSlots, _ scan: JSONScan) -> Handle?? {
        if let value = scan.string(slots.root) {
            return .some(Handle(kind: .generic, value: value, displayName: value))
        }
        guard scan.kind(slots.root) == .object else { return nil }
        let kind = scan.field(slots.kind) { scan.string($0) }
        let value = scan.field(slots.value) { scan.string($0) }
        let name = scan.field(slots.displayName) { scan.string($0) }
        if kind.isMismatch || value.isMismatch || name.isMismatch { return nil }
        guard let text = value.value else { return .some(nil) }
        return .some(Handle(kind: kind.value.flatMap(Self.kind(named:)) ?? .generic, value: text,
                            displayName: name.value ?? text))
    }
}
