/// The MIME wrapper driven by one input: for the fuzzer (`make fuzz`) and the seeded
/// random-input test. Anything but a crash or a broken promise is a pass.
public enum FuzzTargets {
    public static func run(_ bytes: [UInt8]) {
        guard let mail = MailParser.parse(bytes) else { return }
        for (index, attachment) in mail.attachments.enumerated() {
            precondition(attachment.size >= 0, "an attachment of \(attachment.size) bytes")
            precondition(!attachment.type.isEmpty, "an attachment without a type")
            // What downloads is what was measured (a forwarded message is measured with its part's headers).
            let content = MailParser.attachment(index, of: bytes)
            precondition(content != nil, "attachment \(index) is listed but cannot be read")
            if attachment.type != "message/rfc822" {
                precondition(content?.count == attachment.size, "attachment \(index) measured \(attachment.size), read \(content?.count ?? -1)")
            }
            // What a download decodes from the part's place is what the full parse gives.
            if let place = attachment.place {
                precondition(place.start >= 0 && place.length >= 0 && place.start + place.length <= bytes.count,
                             "attachment \(index) lies outside the message")
                let decoder = PartDecoder(place.encoding)
                let decoded = decoder.decode(Array(bytes[place.start..<(place.start + place.length)])) + decoder.finish()
                precondition(decoded == content, "attachment \(index) decodes from its place to other bytes")
            }
        }
        precondition(MailParser.attachment(mail.attachments.count, of: bytes) == nil, "an attachment past the last")
        if let html = mail.html, mail.text.isEmpty == false, html.contains("<script") {
            precondition(!HTMLText.text(of: html).contains("<script"), "a script tag survived into the text")
        }
    }
}
