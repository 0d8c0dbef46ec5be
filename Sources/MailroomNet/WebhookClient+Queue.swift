import MailroomService

/// The webhook client as the webhook queue's sender.
extension WebhookClient: WebhookSender {
    public func post(
        to target: String, body: [UInt8], headers: [(String, String)], completion: @escaping @Sendable (WebhookOutcome) -> Void
    ) {
        guard let parsed = WebhookTarget(target) else {
            completion(.rejected("“\(target)” is not an http or https URL."))
            return
        }
        post(WebhookDelivery(target: parsed, body: body, headers: headers)) { result in
            switch result {
            case .delivered(let status): completion(.delivered("HTTP \(status)"))
            case .rejected(let status): completion(.rejected("HTTP \(status)"))
            case .retry(let reason): completion(.retry(reason))
            }
        }
    }
}
