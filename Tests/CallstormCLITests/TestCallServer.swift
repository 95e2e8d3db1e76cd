import HTTPServer

/// A call server the tests run on loopback (AltCallServer, ForeignCallServer, DialectCallServer): an HTTP
/// handler with an APNs client to close when it stops.
protocol TestCallServer: HTTPHandler {
    func close()
}

extension AltCallServer: TestCallServer {}
extension ForeignCallServer: TestCallServer {}
extension DialectCallServer: TestCallServer {}

/// Serves `server` on a loopback port for the length of `body`, then stops it and closes its APNs client.
func serving<T>(_ server: some TestCallServer, _ body: (_ port: Int) throws -> T) throws -> T {
    let http = HTTPServer(handler: server)
    try http.start()
    defer {
        http.stop()
        server.close()
    }
    return try body(http.port)
}
