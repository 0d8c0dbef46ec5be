import MailroomService

/// The relay client as the outbound queue's sender: it takes the queue's envelope and says the
/// queue's replies (`RelayMessage` and `RelayReply` are those types).
extension RelayClient: OutboundSender {}
