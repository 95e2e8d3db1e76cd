import Foundation

/// Why a report could not be written; each message names the path and what to check.
public enum ReportError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    case cannotCreateDirectory(path: String, reason: String)
    case cannotWriteFile(path: String, reason: String)
    case cannotEncodeSummary(reason: String)

    public var description: String {
        switch self {
        case let .cannotCreateDirectory(path, reason):
            return "cannot create report directory \(path): \(reason); check that the parent exists and is writable"
        case let .cannotWriteFile(path, reason):
            return "cannot write report file \(path): \(reason); check free disk space and permissions"
        case let .cannotEncodeSummary(reason):
            return "cannot encode summary.json: \(reason)"
        }
    }

    public var errorDescription: String? { description }
}
