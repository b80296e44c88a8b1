"""Inbound mail, beside the web: receive, identify, read and answer what players send."""
