#if canImport(CJemalloc)  // not in sanitizer builds (Package.swift, CALLSTORM_NO_JEMALLOC)
import CJemalloc  // links jemalloc as the allocator of the whole process, libcurl and the Swift runtime included
#endif
import CallstormCLI

Command.main()
