import Glibc

/// The allocator's freed pages, given back to the kernel at once. The callstorm executable links jemalloc, whose
/// background thread gives a freed page back after a while (`malloc_conf` in CLinux). When the run is over, the
/// memory its workers let go (their recorders, `RunBooks.handedOver`; their agents' tables) lies in the workers'
/// arenas, which the history check and the report, on the main thread and so another arena, do not reuse: given
/// back first, the end-of-run peak does not carry it beside theirs.
enum HeapPages {
    /// `mallctl`'s signature (jemalloc's control interface).
    private typealias Control = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?,
                                                UnsafeMutablePointer<Int>?, UnsafeMutableRawPointer?, Int) -> Int32

    /// jemalloc's `MALLCTL_ARENAS_ALL`: the command applies to every arena.
    private static let purgeAll = "arena.4096.purge"

    /// Gives every arena's freed pages back now. False when the process has no jemalloc (tests and sanitizer
    /// builds run on glibc's malloc, which has no `mallctl`: looked up, not linked, so they still build) or it
    /// refused.
    @discardableResult
    static func giveBack() -> Bool {
        guard let symbol = dlsym(nil, "mallctl") else { return false }
        let control = unsafeBitCast(symbol, to: Control.self)
        return control(purgeAll, nil, nil, nil, 0) == 0
    }
}
