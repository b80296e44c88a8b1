"""Play by email: outgoing mail from the outbox, incoming orders, tokens and headers."""
