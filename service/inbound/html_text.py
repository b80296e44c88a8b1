"""HTML mail to plain text, keeping only what a player wrote on top.

Many clients (phones, webmail) send HTML only. Orders are lines, so block elements and
<br> become line breaks; quoted material becomes `> ` lines, the same shape plain-text
clients give it, so one quote stripper serves both: <blockquote>, Gmail's
`gmail_quote`, Yahoo's `yahoo_quoted`, Thunderbird's `moz-cite-prefix` and Apple's
`type="cite"`. Outlook puts its reply header in `#divRplyFwdMsg` / `#appendonsend`
and quotes without markers, so everything from there on is dropped. Scripts, styles
and the head are never text.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCK = {
    "p", "div", "br", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6",
    "pre", "section", "article", "header", "footer", "hr", "dl", "dt", "dd", "blockquote",
}
_SKIP = {"script", "style", "head", "title", "template", "noscript"}
_VOID = {"br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr", "source"}
_QUOTE_CLASSES = ("gmail_quote", "yahoo_quoted", "moz-cite-prefix", "protonmail_quote")
_CUT_IDS = ("divrplyfwdmsg", "appendonsend", "mail-editor-reference-message-container")


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str]] = []  # (quote depth, text)
        self.current: list[str] = []
        self.depth = 0
        self.skip = 0
        self.cut = False
        # Which open tags raised the quote depth or skip count, to undo on close.
        self.stack: list[tuple[str, bool, bool]] = []
        self.pre = 0

    def _flush(self) -> None:
        text = "".join(self.current)
        self.current = []
        if not self.pre:
            text = re.sub(r"[ \t\r\n\f\v\u00a0]+", " ", text).strip()
        for part in text.split("\n"):
            self.lines.append((self.depth, part.rstrip()))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.cut:
            return
        a = {k.lower(): (v or "") for k, v in attrs}
        if a.get("id", "").lower() in _CUT_IDS:
            self._flush()
            self.cut = True
            return
        if tag in _BLOCK:
            self._flush()
        if tag in _VOID:
            return
        classes = a.get("class", "").lower()
        quote = tag == "blockquote" or a.get("type", "").lower() == "cite" or any(
            c in classes for c in _QUOTE_CLASSES
        )
        skip = tag in _SKIP
        self.depth += quote
        self.skip += skip
        self.pre += tag == "pre"
        self.stack.append((tag, quote, skip))

    def handle_endtag(self, tag: str) -> None:
        if self.cut:
            return
        if tag in _BLOCK:
            self._flush()
        # Pop up to the matching open tag: mail HTML often leaves tags unclosed.
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                for t, quote, skip in self.stack[i:]:
                    self.depth -= quote
                    self.skip -= skip
                    self.pre -= t == "pre"
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        if not self.cut and not self.skip:
            self.current.append(data)


def html_to_text(html: str) -> str:
    """Readable text of an HTML mail body; quoted parts as `> ` lines."""
    conv = _Converter()
    conv.feed(html)
    conv.close()
    conv._flush()
    out: list[str] = []
    for depth, text in conv.lines:
        if not text:  # blank lines carry nothing for orders; block ends make many
            continue
        out.append(("> " * depth + text) if depth else text)
    return "\n".join(out)
