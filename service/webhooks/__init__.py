"""Chat and JSON webhooks: a game's news posted to Discord, Slack or any JSON receiver.

`store` (the GM's hooks, the notification channel that queues news for them, the sealed
signing secrets), `guard` (where a hook may point, and the one POST), `payloads` (what a
post says) and `deliver` (the worker's side: one post a minute, retries, failing hooks).
docs/notifications.md tells the GM and a receiver's author what to expect.
"""
