import Scenario
import TextEscaping

/// Where a view mapping's fields lie in a document: its paths compiled into a `JSONPattern` under the path of the
/// view (an answer's `response` or `split`, a push's `view`), so one `JSONScan` of the bytes finds them all.
struct ViewSlots: Sendable {
    /// The view itself (it must be an object).
    let root: JSONPattern.Slot
    /// Nil without a view mapping: whatever stands at the view's path is then no view.
    let fields: Fields?

    struct Fields: Sendable {
        let id: JSONPattern.Slot
        let members: JSONPattern.Slot
        let member: MemberSlots
        let state: JSONPattern.Slot?
        let version: JSONPattern.Slot?
        let ended: JSONPattern.Slot?
        let endedReason: JSONPattern.Slot?
        let capabilities: StringsSlots?
    }

    /// One member, in the group of the members' elements.
    struct MemberSlots: Sendable {
        let id: JSONPattern.Slot
        let status: JSONPattern.Slot
        let handle: HandleSlots?
    }

    init(_ mapping: ViewMapping?, at prefix: [JSONPattern.Step], into pattern: inout JSONPattern) {
        root = pattern.capture(prefix)
        guard let mapping else {
            fields = nil
            return
        }
        func at(_ path: String?) -> JSONPattern.Slot? {
            path.map { pattern.capture(prefix + Self.steps($0)) }
        }
        let members = pattern.list(prefix + Self.steps(mapping.members))
        let group = members.elements
        let member = MemberSlots(id: pattern.capture(Self.steps(mapping.memberID), in: group),
                                 status: pattern.capture(Self.steps(mapping.memberStatus), in: group),
                                 handle: mapping.memberHandle.map {
                                     HandleSlots(Self.steps($0), in: group, into: &pattern)
                                 })
        fields = Fields(id: pattern.capture(prefix + Self.steps(mapping.id)), members: members.slot, member: member,
                        state: at(mapping.state), version: at(mapping.version), ended: at(mapping.ended),
                        endedReason: at(mapping.endedReason),
                        capabilities: mapping.capabilities.map {
                            StringsSlots(prefix + Self.steps($0), into: &pattern)
                        })
    }

    /// A mapping's path as the pattern's steps (the decoder already refused paths that do not parse).
    static func steps(_ text: String) -> [JSONPattern.Step] {
        guard let path = JSONPath(text) else {
            preconditionFailure("a mapping's JSON path that does not parse reached the reader: \(text)")
        }
        return path.steps.map(step)
    }

    static func step(_ step: JSONPath.Step) -> JSONPattern.Step {
        switch step {
        case .key(let key): .key(key)
        case .index(let i): .index(i)
        }
    }
}

/// A handle: a string, or an object of `kind`, `value` and `displayName`.
struct HandleSlots: Sendable {
    let root: JSONPattern.Slot
    let kind: JSONPattern.Slot
    let value: JSONPattern.Slot
    let displayName: JSONPattern.Slot

    init(_ path: [JSONPattern.Step], in group: JSONPattern.Group = .root, into pattern: inout JSONPattern) {
        root = pattern.capture(path, in: group)
        kind = pattern.capture(path + [.key("kind")], in: group)
        value = pattern.capture(path + [.key("value")], in: group)
        displayName = pattern.capture(path + [.key("displayName")], in: group)
    }
}

/// An array of strings (capabilities).
struct StringsSlots: Sendable {
    let list: JSONPattern.Slot
    let item: JSONPattern.Slot

    init(_ path: [JSONPattern.Step], into pattern: inout JSONPattern) {
        let list = pattern.list(path)
        self.list = list.slot
        item = pattern.capture([], in: list.elements)
    }

    /// Every element a string, or nil (not an array, or an element of another kind).
    func read(_ scan: JSONScan, _ instance: JSONScan.Instance = .root) -> [String]? {
        guard let elements = scan.elements(list, instance) else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard let s = scan.string(item, element) else { return nil }
            strings.append(s)
        }
        return strings
    }
}

extension JSONScan {
    /// A mapped field's value by JSONDecoder's rule for an optional: absent when missing or null, a mismatch when
    /// `read` finds the wrong type.
    func field<T>(_ slot: JSONPattern.Slot?, _ instance: Instance = .root, _ read: (JSONPattern.Slot) -> T?)
        -> JSONField<T> {
        guard let slot, isPresent(slot, instance) else { return .absent }
        return read(slot).map(JSONField.value) ?? .mismatch
    }
}
