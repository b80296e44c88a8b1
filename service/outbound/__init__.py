"""Outbound mail, the worker side: compose a queued row, sign it, send or keep it."""
