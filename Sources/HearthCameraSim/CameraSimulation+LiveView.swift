import HearthDriverKit
import HearthTypes

extension CameraSimulation {
    typealias LiveView = Google.WebRtcLiveViewTrait

    /// Handlers of `WebRtcLiveViewTrait`: start (answering the offer), extend, stop, talkback.
    func installLiveView(_ driver: Driver) {
        driver.onCommand(LiveView.StartLiveViewCommand.self, responding: LiveView.StartLiveViewResponse.self) {
            [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                try startLiveView(command.offerSdp, camera: context.device.id, now: .now)
            }
        }
        driver.onCommand(LiveView.ExtendLiveViewCommand.self, responding: LiveView.ExtendLiveViewResponse.self) {
            [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                try withCamera(context.device.id) { camera throws(CameraError) in
                    _ = try camera.sessions.extend(command.mediaSessionId, now: .now)
                }
                return LiveView.ExtendLiveViewResponse(liveSessionDurationSeconds: configuration.liveSessionSeconds)
            }
        }
        driver.onCommand(LiveView.StopLiveViewCommand.self) { [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                try withCamera(context.device.id) { camera throws(CameraError) in
                    try camera.sessions.stop(command.mediaSessionId, now: .now)
                }
            }
        }
        driver.onCommand(LiveView.StartTalkbackCommand.self) { [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                try withCamera(context.device.id) { camera throws(CameraError) in
                    try camera.sessions.startTalkback(command.mediaSessionId, now: .now)
                }
            }
        }
        driver.onCommand(LiveView.StopTalkbackCommand.self) { [self] command, context in
            try CameraError.mapped { () throws(CameraError) in
                try withCamera(context.device.id) { camera throws(CameraError) in
                    try camera.sessions.stopTalkback(command.mediaSessionId, now: .now)
                }
            }
        }
    }

    /// Parses the offer, answers it, and opens a session.
    /// - Throws: INVALID_ARGUMENT for an offer that does not parse or cannot be answered (the message is the
    ///   ``SDPError``); FAILED_PRECONDITION in privacy mode; RESOURCE_EXHAUSTED at the session limit.
    func startLiveView(_ offerText: String, camera id: String, now: ContinuousClock.Instant) throws(CameraError)
        -> LiveView.StartLiveViewResponse
    {
        var random = SystemRandomNumberGenerator()
        let secrets = AnswerSecrets.random(using: &random)
        let sessionID = "lv-" + (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }.hex
        return try withCamera(id) { camera throws(CameraError) in
            let settings = try? camera.device.attributes(Google.CameraAvStreamManagementTrait.self)
            if settings?.hardPrivacyModeOn == true || settings?.softLivestreamPrivacyModeEnabled == true {
                throw CameraError(.failedPrecondition, "the camera is in privacy mode: live view is off")
            }
            let answer: SDPAnswerer.Answer
            do throws(SDPError) {
                let offer = try SessionDescription(parsing: offerText)
                answer = try camera.answerer.answer(offer, secrets: secrets)
            } catch {
                throw CameraError(.invalidArgument, error.description)
            }
            let session = try camera.sessions.start(id: sessionID, receivesAudio: answer.receivesAudio, now: now)
            return LiveView.StartLiveViewResponse(
                answerSdp: answer.description.text, mediaSessionId: session.id,
                liveSessionDurationSeconds: configuration.liveSessionSeconds)
        }
    }
}

extension Sequence<UInt8> {
    /// Lower-case hex, two digits a byte.
    var hex: String {
        map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }
}
