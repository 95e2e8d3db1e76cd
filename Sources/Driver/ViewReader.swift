import CallModel
import Scenario
import TextEscaping

/// A push's payload as a device needs it: what happened, to which conversation, and the conversation's view.
struct PushPayload {
    var uuid: String?
    var caller: Handle?
    /// Nil when the push does not say: the device's own capabilities apply.
    var capabilities: [String]?
    /// `joined` and `ended` when the mapping's words say so, else the server's word.
    var event: String?
    var version: Int?
    var reason: String?
    var into: String?
    var view: ConversationView?
    /// The target's clock (epoch ms) when it sent the push, when it says (the reference target does).
    var sentAt: Int?
}

/// Reads conversation views and push payloads out of any JSON a server sends, with the `target.api` mapping's
/// paths and words. The reference protocol is read by this same code with its built-in mapping.
///
/// The mapping's paths are compiled once into patterns (`JSONPattern`): a document is read in one pass over its
/// bytes for the fields they name (`JSONScan`), and only those become Strings (issue 33: the JSONLite tree built
/// per document and then searched cost ~250,000 instructions an HTTP call).
///
/// Reads are strict as JSONDecoder's were for the reference shapes: a mapped field present with the wrong type
/// fails the whole document (a `bad_response` or `pushes.bad_payload`), an absent optional one does not.
struct ViewReader: Sendable {
    /// Everything the reader holds, behind one reference: readers are copied per answer and per push (`let reader
    /// = api.reader`), and as a struct of mappings, patterns and slots each copy retained and released ~40 fields
    /// (the view mapping's sixteen alone ~150 times an HTTP call). The accessors below lend the parts, not copies.
    private let parts: Parts

    private final class Parts: Sendable {
        let mapping: ViewMapping?
        let push: APIMapping.PushFields
        let handles: HandleBook?
        let answers: JSONPattern
        let answerSlots: (root: JSONPattern.Slot, view: ViewSlots, split: ViewSlots?)
        let pushes: JSONPattern
        let pushSlots: PushSlots
        /// `mapping` once more behind a reference of its own, for reading views: binding the optional struct
        /// would copy its sixteen fields per view.
        let words: Words?
        /// `mapping != nil` and `mapping?.required`, kept apart: each test of the optional struct copied its
        /// sixteen fields (~105 retains and as many releases an HTTP call, issue 33).
        let hasMapping: Bool
        let required: Bool

        init(_ mapping: ViewMapping?, _ push: APIMapping.PushFields, _ handles: HandleBook?) {
            (self.mapping, self.push, self.handles) = (mapping, push, handles)
            words = mapping.map(Words.init)
            hasMapping = mapping != nil
            required = mapping?.required == true
            var answers = JSONPattern()
            let root = answers.capture([])
            let view = ViewSlots(mapping, at: ViewSlots.steps(mapping?.response ?? "$"), into: &answers)
            let split = mapping?.split.map { ViewSlots(mapping, at: ViewSlots.steps($0), into: &answers) }
            answerSlots = (root, view, split)
            self.answers = answers
            var pushes = JSONPattern()
            pushSlots = PushSlots(push, view: mapping, into: &pushes)
            self.pushes = pushes
        }
    }

    private final class Words: Sendable {
        let mapping: ViewMapping
        init(_ mapping: ViewMapping) { self.mapping = mapping }
    }

    var mapping: ViewMapping? { _read { yield parts.mapping } }
    /// Whether there is a view mapping, without copying it.
    var hasMapping: Bool { parts.hasMapping }
    /// The mapping says every response carries a view (`ViewMapping.required`).
    var viewRequired: Bool { parts.required }
    var push: APIMapping.PushFields { _read { yield parts.push } }
    /// Each device's handle (`device.handles`); nil: every device has its phone number.
    var handles: HandleBook? { _read { yield parts.handles } }
    /// What an answer or a `get` is read for: the document, its view (`response`) and its split-off view.
    private var answers: JSONPattern { _read { yield parts.answers } }
    private var answerSlots: (root: JSONPattern.Slot, view: ViewSlots, split: ViewSlots?) {
        _read { yield parts.answerSlots }
    }
    /// What a push is read for (`PushSlots`).
    var pushes: JSONPattern { _read { yield parts.pushes } }
    var pushSlots: PushSlots { _read { yield parts.pushSlots } }

    init(view mapping: ViewMapping?, push: APIMapping.PushFields, handles: HandleBook? = nil) {
        parts = Parts(mapping, push, handles)
    }

    static let reference = ViewReader(view: .reference, push: .reference)

    // MARK: - Views

    /// A whole document that is one view (what `get` returns, at the mapping's response path).
    func response(_ bytes: [UInt8]) -> ConversationView? {
        guard hasMapping, let scan = JSONScan(bytes, answers) else { return nil }
        return view(answerSlots.view, in: scan)
    }

    /// An action's answer read once: the view it carries and the view of a conversation it split off (when
    /// `split` and the mapping says where answers carry one).
    func answer(_ bytes: [UInt8], split wantSplit: Bool) -> (view: ConversationView?, split: ConversationView?) {
        guard hasMapping, let scan = JSONScan(bytes, answers) else { return (nil, nil) }
        let view = self.view(answerSlots.view, in: scan)
        guard wantSplit, let split = answerSlots.split, scan.kind(answerSlots.root) == .object else {
            return (view, nil)
        }
        return (view, scan.field(split.root) { _ in self.view(split, in: scan) }.value)
    }

    /// The view at `slots` in a scanned document, or nil when it is not one.
    func view(_ slots: ViewSlots, in scan: JSONScan) -> ConversationView? {
        guard let words = parts.words, let f = slots.fields, scan.kind(slots.root) == .object,
              let id = scan.string(f.id),
              let rawMembers = scan.elements(f.members) else { return nil }
        var version = 0
        if let slot = f.version {
            guard let v = scan.int(slot) else { return nil }
            version = v
        }
        let ended = scan.field(f.ended) { scan.bool($0) }
        let state = scan.field(f.state) { scan.string($0) }
        let reason = scan.field(f.endedReason) { scan.string($0) }
        let capabilities = scan.field(f.capabilities?.list) { _ in f.capabilities?.read(scan) }
        if ended.isMismatch || state.isMismatch || reason.isMismatch || capabilities.isMismatch { return nil }
        var members: [ConversationView.Member] = []
        members.reserveCapacity(rawMembers.count)
        for raw in rawMembers {
            guard let member = member(raw, f.member, scan, words) else { return nil }
            members.append(member)
        }
        let hasEnded = ended.value ?? (state.value.map(words.mapping.stateWord) == "left")
        var view = ConversationView(uuid: id, version: version, ended: hasEnded, members: members)
        view.endedReason = reason.value
        view.hasVersion = f.version != nil
        view.capabilities = capabilities.value.map {
            Capabilities(names: CapabilityWords.lck($0, words.mapping.capabilityWords))
        }
        return view
    }

    private func member(_ raw: JSONScan.Instance, _ slots: ViewSlots.MemberSlots, _ scan: JSONScan,
                        _ words: Words) -> ConversationView.Member? {
        guard let rawID = scan.string(slots.id, raw), let status = scan.string(slots.status, raw) else { return nil }
        // A server may name members by device id or by phone number: either way the member is our device.
        let device = Self.isDeviceID(rawID) ? rawID : DeviceIdentity.id(forHandleValue: rawID)
        let handle: Handle
        if let slots = slots.handle {
            // The view says the handle: the one derived from the id would be thrown away.
            guard let h = Self.handle(slots, raw, scan) else { return nil }
            handle = h
        } else {
            handle = (handles.map { $0.handle(forID: device) } ?? DeviceIdentity.handle(forID: device))
                ?? Handle(kind: .generic, value: rawID, displayName: rawID)
        }
        return ConversationView.Member(device: device, handle: handle, state: words.mapping.memberWord(status))
    }

    /// `dev-N`: already a device id, which `DeviceIdentity.id(forHandleValue:)` would hand back unchanged after
    /// trying every handle shape on it (the reference views name every member so, several views a call).
    /// Over the String's contiguous bytes: UTF8View's `starts(with:)` and `dropFirst().allSatisfy` cost ~1,000
    /// instructions a member.
    static func isDeviceID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count > 4 else { return false }
        let check = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            guard bytes[0] == 0x64, bytes[1] == 0x65, bytes[2] == 0x76, bytes[3] == 0x2D else { return false }  // dev-
            for i in 4..<bytes.count where bytes[i] < 0x30 || bytes[i] > 0x39 { return false }
            return true
        }
        if let answer = utf8.withContiguousStorageIfAvailable(check) { return answer }
        return Array(utf8).withUnsafeBufferPointer(check)
    }

    /// A handle object (every field required) or a plain string.
    static func handle(_ slots: HandleSlots, _ instance: JSONScan.Instance, _ scan: JSONScan) -> Handle? {
        if let value = scan.string(slots.root, instance) {
            return Handle(kind: .generic, value: value, displayName: value)
        }
        guard scan.kind(slots.root, instance) == .object,
              let kind = scan.string(slots.kind, instance).flatMap(kind(named:)),
              let value = scan.string(slots.value, instance),
              let displayName = scan.string(slots.displayName, instance) else { return nil }
        return Handle(kind: kind, value: value, displayName: displayName)
    }

    /// `Handle.Kind(rawValue:)`, a phone number (nearly every handle) tried first by one comparison of small
    /// Strings: the enum's String switch cost ~290 instructions a handle, two to eight handles a view (issue 33).
    static func kind(named text: String) -> Handle.Kind? {
        text == "phoneNumber" ? .phoneNumber : Handle.Kind(rawValue: text)
    }
}
