import Foundation

#if FUZZING
/// The target this process fuzzes, from CALLSTORM_FUZZ_TARGET (scripts/fuzz.sh sets it).
private let selected: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["CALLSTORM_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("set CALLSTORM_FUZZ_TARGET to one of " + FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selected.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's entry for programs that keep their own `main` (SwiftPM links executables through one).
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@main
enum Fuzz {
    static func main() {
        _ = selected
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
    }
}
#else
/// `CallstormFuzz TARGET PATH...`: runs every file (directories are walked) through TARGET once, so the corpora
/// and past crashers stay regression tests without libFuzzer.
@main
enum Replay {
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        guard let name = args.first, let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: CallstormFuzz \(names) FILE|DIR...\n".utf8))
            exit(2)
        }
        var count = 0
        for path in args.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                [UInt8](data).withUnsafeBufferPointer { target.run($0) }
                count += 1
            }
        }
        print("\(target.rawValue): \(count) inputs ran without a crash")
    }
}
#endif
