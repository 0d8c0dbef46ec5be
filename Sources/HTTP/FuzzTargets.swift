/// Every parser that reads bytes from the network, driven with one input: for the fuzzer
/// (`make fuzz`) and the seeded random-input test. Anything but a crash is a pass.
public enum FuzzTargets {
    public static func run(_ bytes: [UInt8]) {
        if let form = try? FormData(urlEncoded: bytes) {
            // A decoded form must survive encoding and decoding again unchanged.
            let again = try? FormData(urlEncoded: form.urlEncoded)
            precondition(again == form, "form round trip changed \(form.fields)")
        }
        let target = String(decoding: bytes, as: UTF8.self)
        if let request = try? Request(method: .get, target: target) {
            precondition(request.path.hasPrefix("/"), "a parsed path must start with /")
            if let relative = StaticFiles.safeRelativePath(request.path) {
                precondition(!relative.split(separator: "/").contains(".."), "a safe path climbed out: \(relative)")
                precondition(!relative.hasPrefix("/"), "a safe path became absolute: \(relative)")
            }
        }
        var headers = Headers()
        headers.add("Content-Type", "application/x-www-form-urlencoded")
        _ = try? Request(method: .post, path: "/", headers: headers, body: bytes).form()

        // The bytes as a connection's buffer: whatever comes back must stay inside them.
        let limits = RequestLimits(maxURLBytes: 256, maxHeaderBytes: 512, maxHeaderCount: 16, maxBodyBytes: 512)
        switch RequestParser.parse(bytes, limits: limits) {
        case .request(let request, let consumed, _):
            precondition(consumed > 0 && consumed <= bytes.count, "consumed \(consumed) of \(bytes.count) bytes")
            precondition(request.body.count <= limits.maxBodyBytes, "a body over the limit was accepted")
        case .rejected(_, let consumed, _):
            precondition(consumed > 0 && consumed <= bytes.count, "consumed \(consumed) of \(bytes.count) bytes")
        case .incomplete, .refused:
            break
        }
    }
}
