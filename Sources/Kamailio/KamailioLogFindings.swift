/// What Kamailio's log says about its own limits: lines where it could not allocate memory, by pool. A value,
/// added to line by line (`read`), so the reading is tested on text without a server.
///
/// Kamailio 5.6 writes `could not allocate shared memory from shm pool` (SHM_MEM_ERROR) and `could not allocate
/// private memory from pkg pool` (PKG_MEM_ERROR), and modules add their own `out of mem` (tm's `new_t(): out of
/// mem:` is the commonest under load) without naming the pool.
public struct KamailioLogFindings: Sendable, Equatable {
    /// Lines naming the shared memory pool (`-m`).
    public var sharedMemory = 0
    /// Lines naming a process's private memory pool (`-M`).
    public var privateMemory = 0
    /// `out of mem` lines that name no pool.
    public var unnamedMemory = 0
    /// The first line of each kind, as Kamailio wrote it (for the run's notes).
    public var firstLines: [String] = []

    public init() {}

    /// Whether the server ran out of memory at all.
    public var exhausted: Bool { sharedMemory + privateMemory + unnamedMemory > 0 }

    /// Every memory line counted.
    public var memoryLines: Int { sharedMemory + privateMemory + unnamedMemory }

    /// Counts one line of the log.
    public mutating func read(_ line: Substring) {
        guard line.contains("ERROR") || line.contains("CRITICAL") || line.contains("ALERT") else { return }
        let lower = line.lowercased()
        let kept = firstLines.count
        if lower.contains("shm pool") || lower.contains("shared memory") || lower.contains("no more shm") {
            if sharedMemory == 0 { firstLines.append(String(line)) }
            sharedMemory += 1
        } else if lower.contains("pkg pool") || lower.contains("private memory") || lower.contains("no more pkg") {
            if privateMemory == 0 { firstLines.append(String(line)) }
            privateMemory += 1
        } else if lower.contains("out of mem") || lower.contains("no more memory") {
            if unnamedMemory == 0 { firstLines.append(String(line)) }
            unnamedMemory += 1
        }
        if firstLines.count > kept, firstLines.count > 3 { firstLines.removeLast() }
    }

    /// Counts every complete line of `text`.
    public mutating func read(text: String) {
        for line in text.split(separator: "\n") { read(line) }
    }
}
