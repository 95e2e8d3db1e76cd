import Foundation

/// A value several tests of one class assert different things about, made once on first use: a whole run, say,
/// that each test reads for its own question instead of running it again. A failure to make it is kept too, so
/// every test that needs the value fails with the same error. Files it made are the class's to remove, in
/// `override class func tearDown()`.
public final class SharedResult<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let make: @Sendable () throws -> Value
    private var result: Result<Value, Error>?

    public init(_ make: @escaping @Sendable () throws -> Value) {
        self.make = make
    }

    /// The value, made now if no test asked for it before.
    public func value() throws -> Value {
        lock.lock()
        defer { lock.unlock() }
        if result == nil { result = Result { try make() } }
        return try result!.get()
    }
}
