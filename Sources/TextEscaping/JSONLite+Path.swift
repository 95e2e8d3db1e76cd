extension JSONLite.Value {
    /// The value at `path` in the tree: a key step finds the last member of that name in an object, an index step
    /// an element of an array, and either finds nothing in any other value. `TargetAPI.captures` reads a mapping's
    /// `capture` paths so; it is also the meaning `JSONScan` keeps without the tree, which its tests and the `json`
    /// fuzz target check the scan against.
    public func value(at path: [JSONPattern.Step]) -> JSONLite.Value? {
        var current = self
        for step in path {
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
