import CallModel
@testable import Driver
import Scenario
import TextEscaping

/// `json`'s differential half: the one-pass scan (`JSONScan`) against the JSONLite tree it replaced, on any bytes.
/// The same documents must be refused; for a document both read, every path the tree holds (up to a bound) and a
/// few it does not must give the same value, and a list at every array the same elements. Then each view reader
/// against `TreeViewReader`, the reader over trees before issue 33, for views, answers and pushes.
func fuzzJSONScan(_ bytes: [UInt8], readers: [ViewReader]) {
    let tree = JSONLite.parse(bytes)
    var paths: [[JSONPattern.Step]] = [[], [.key("id")], [.key("a"), .index(0)], [.index(1), .key("members")]]
    if let tree { collect(tree, [], into: &paths) }
    var pattern = JSONPattern()
    let slots = paths.map { pattern.capture($0) }
    let lists = paths.map { pattern.list($0) }
    let firstKeys = paths.map { path in tree?.value(at: path).flatMap(firstKey) }
    let items = zip(lists, firstKeys).map { list, key in
        (pattern.capture([], in: list.elements), key.map { pattern.capture([.key($0)], in: list.elements) })
    }
    let scan = JSONScan(bytes, pattern)
    precondition((scan == nil) == (tree == nil), "the scan and the tree refuse different documents")
    if let scan, let tree {
        for (i, path) in paths.enumerated() {
            let expected = tree.value(at: path)
            precondition(scan.value(slots[i]) == expected, "\(path): the scan's value is not the tree's")
            precondition(scan.string(slots[i]) == expected?.stringValue, "\(path): strings differ")
            precondition(scan.int(slots[i]) == expected?.intValue, "\(path): integers differ")
            precondition(scan.bool(slots[i]) == expected?.boolValue, "\(path): booleans differ")
            let elements = scan.elements(lists[i].slot).map(Array.init)
            precondition(elements?.count == expected?.arrayValue?.count, "\(path): the list's length differs")
            for (element, value) in zip(elements ?? [], expected?.arrayValue ?? []) {
                precondition(scan.value(items[i].0, element) == value, "\(path): an element differs")
                if let key = items[i].1, let name = firstKeys[i] {
                    precondition(scan.value(key, element) == value[name], "\(path): an element's field differs")
                }
            }
        }
    }
    for reader in readers {
        let old = TreeViewReader(reader)
        precondition(reader.response(bytes) == old.response(bytes), "response views differ")
        for split in [false, true] {
            let (view, splitView) = reader.answer(bytes, split: split)
            let (oldView, oldSplit) = old.answer(bytes, split: split)
            precondition(view == oldView && splitView == oldSplit, "answers differ (split: \(split))")
        }
        precondition(same(reader.push(bytes), old.push(bytes)), "push payloads differ")
    }
}

/// Every path to a value in `value`, depth first, up to 64 paths and depth 6.
private func collect(_ value: JSONLite.Value, _ prefix: [JSONPattern.Step], into paths: inout [[JSONPattern.Step]]) {
    guard paths.count < 64, prefix.count < 6 else { return }
    switch value {
    case .object(let fields):
        for (key, child) in fields.members {
            paths.append(prefix + [.key(key)])
            collect(child, prefix + [.key(key)], into: &paths)
        }
    case .array(let items):
        for (i, child) in items.enumerated().prefix(4) {
            paths.append(prefix + [.index(i)])
            collect(child, prefix + [.index(i)], into: &paths)
        }
    default: return
    }
}

/// The first member name of the first object element of an array: a field to read in each element of its list.
private func firstKey(_ value: JSONLite.Value) -> String? {
    for item in value.arrayValue ?? [] {
        if case .object(let fields) = item, let first = fields.members.first { return first.key }
    }
    return nil
}

private func same(_ a: PushPayload?, _ b: PushPayload?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return a.uuid == b.uuid && a.caller == b.caller && a.capabilities == b.capabilities && a.event == b.event
        && a.version == b.version && a.reason == b.reason && a.into == b.into && a.view == b.view
        && a.sentAt == b.sentAt
}
