import CJemalloc  // links jemalloc as the allocator of the whole process, libcurl and the Swift runtime included
import CallstormCLI

Command.main()
