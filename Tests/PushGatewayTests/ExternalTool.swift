import Foundation
import XCTest

/// Runs an external program (curl, python3, h2load) and collects what it printed. The tools are installed by
/// `scripts/test-deps.sh`, which `make test` runs first, so a missing one is a failure, not a skip.
struct ToolRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum ExternalTool {
    /// Runs `tool` (looked up on PATH) with `arguments`; kills it after `timeout` seconds.
    static func run(_ tool: String, _ arguments: [String], timeout: TimeInterval = 30,
                    file: StaticString = #filePath, line: UInt = #line) throws -> ToolRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while the tool runs, so a chatty tool cannot block on a full pipe.
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            XCTFail("\(tool) ran longer than \(timeout) s", file: file, line: line)
        }
        process.waitUntilExit()
        group.wait()
        return ToolRun(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh temporary directory, removed by the caller's `defer`.
    static func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "callstorm-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}
