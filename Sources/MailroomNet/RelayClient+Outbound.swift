import MailroomService

/// The relay client as the outbound queue's sender: the queue's envelope and replies are the
/// client's own, said in the service's words.
extension RelayClient: OutboundSender {
    public func send(
        _ mail: OutboundEnvelope,
        beforeEnd: @escaping @Sendable (@escaping @Sendable (Bool) -> Void) -> Void,
        completion: @escaping @Sendable ([OutboundReply]) -> Void
    ) {
        send(RelayMessage(sender: mail.sender, recipients: mail.recipients, bytes: mail.bytes), beforeEnd: beforeEnd) { replies in
            completion(replies.map { reply in
                switch reply {
                case .accepted(let text): .accepted(text)
                case .deferred(let text): .deferred(text)
                case .refused(let text): .refused(text)
                }
            })
        }
    }
}
