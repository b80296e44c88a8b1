"""Pictures of a board from engine.Board: SVG for pages, plain text and HTML tables for mail."""
