/// A call's role → device (worker-local index) map, searched by comparing names: a call has two or three roles,
/// and a `[String: Int]` hashed the role's name at every lookup (`device(for:)`, `devices()`, each start and
/// member action), ~2,000 instructions per SIP hold call in `__RawDictionaryStorage.find` (issue 33).
struct RoleDevices: ExpressibleByDictionaryLiteral {
    /// In the flow's role order first (`init(_:order:)`), then any other role by name.
    private(set) var entries: [(role: String, device: Int)] = []

    init(dictionaryLiteral elements: (String, Int)...) {
        for (role, device) in elements { self[role] = device }
    }

    /// `roles` with the roles `order` names first, in that order, then the others by name.
    init(_ roles: [String: Int], order: [String]) {
        entries.reserveCapacity(roles.count)
        for role in order { if let device = roles[role], self[role] == nil { entries.append((role, device)) } }
        // The rest sorted only when there is a rest: a flow's call names its roles, and sorting them all made an
        // array and compared the names at every call's launch.
        guard entries.count < roles.count else { return }
        for role in roles.keys.sorted() where self[role] == nil { entries.append((role, roles[role]!)) }
    }

    var count: Int { entries.count }
    /// The devices, in `entries` order.
    var values: LazyMapSequence<[(role: String, device: Int)], Int> { entries.lazy.map(\.device) }

    subscript(role: String) -> Int? {
        get {
            for entry in entries where entry.role == role { return entry.device }
            return nil
        }
        set {
            guard let i = entries.firstIndex(where: { $0.role == role }) else {
                if let newValue { entries.append((role, newValue)) }
                return
            }
            if let newValue { entries[i].device = newValue } else { entries.remove(at: i) }
        }
    }
}
