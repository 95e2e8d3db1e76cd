import Foundation

/// Open file descriptors of this process, for leak checks around a server's or a proxy's lifetime.
public func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// What each open descriptor points at (`3 -> socket:[1234]`), so a leak check's failure names the leaked one.
public func openDescriptorList() -> String {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.compactMap(Int.init).sorted().map { fd in
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "?"
        return "\(fd) -> \(target)"
    }.joined(separator: ", ")
}

/// Open sockets of this process (descriptors that point at `socket:[…]`): a server's leaked connection is one,
/// while a descriptor the runtime opens lazily in the middle of a test (an epoll set, a file) is not.
public func openSocketCount() -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.filter {
        ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) ?? "").hasPrefix("socket:")
    }.count
}
