"""The text of what was fetched: HTML's main text (trafilatura, without navigation), PDF's text layer (pypdf),
plain text as it is; and the pages that are not the document at all (a login, paywall or cookie wall, an
empty or binary body, a PDF without a text layer), each said as its check result.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from hpckg import __version__

# A wall is a short page (its text, navigation included) that asks for something before showing anything.
WALL_TEXT_CHARS = 1500
_WALLS = (
    ("cookie-wall", re.compile(
        r"(accept|agree to|consent to|allow) (all )?cookies|cookie (settings|preferences|consent|policy)"
        r"|we use cookies|before you continue", re.IGNORECASE)),
    ("login-wall", re.compile(
        r"\b(sign|log) ?in to (continue|read|view|access|see)|please (sign|log) ?in|you must be logged in"
        r"|login required|sign in with", re.IGNORECASE)),
    ("paywall", re.compile(
        r"subscribe (now |today )?to (continue|read|keep reading|unlock)|subscribers only|for subscribers"
        r"|purchase (this )?(article|access)|already a subscriber|start your (free )?trial", re.IGNORECASE)),
)
_PASSWORD_FIELD = re.compile(rb"<input[^>]+type\s*=\s*[\"']?password", re.IGNORECASE)
_BINARY_TYPES = ("image/", "audio/", "video/", "font/", "application/octet-stream", "application/zip",
                 "application/gzip", "application/x-", "application/vnd.")
MAX_PDF_PAGES = 300

logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
logging.getLogger("pypdf").setLevel(logging.CRITICAL)


@dataclass
class Extracted:
    """The text read (empty when there is none) or why there is none: a check-result name and a detail."""

    text: str = ""
    problem: str | None = None
    detail: str | None = None
    kind: str = "html"  # html, pdf, text


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def charset(content_type: str | None) -> str | None:
    found = re.search(r"charset\s*=\s*[\"']?([\w.:-]+)", content_type or "", re.IGNORECASE)
    return found.group(1) if found else None


def extract(body: bytes, content_type: str | None, url: str = "") -> Extracted:
    """What a body says, by its content type (and, for a missing or wrong one, by its first bytes)."""
    kind = media_type(content_type)
    if not body.strip():
        return Extracted(problem="empty-body", detail="the response had no content", kind="text")
    head = body[:1024].lstrip()
    if kind == "application/pdf" or head.startswith(b"%PDF-"):
        return _pdf(body)
    if kind in ("text/html", "application/xhtml+xml") or head[:15].lower().startswith((b"<!doctype html", b"<html")):
        return _html(body, url)
    if kind.startswith(_BINARY_TYPES) or b"\x00" in head:
        return Extracted(problem="binary-body", detail=f"a {kind or 'binary'} body is not a document with text",
                         kind="binary")
    try:
        text = body.decode(charset(content_type) or "utf-8")
    except (UnicodeDecodeError, LookupError):
        text = body.decode("utf-8", errors="replace")
        if text.count("\ufffd") > len(text) // 20:
            return Extracted(problem="binary-body", detail="the body is not text in any declared encoding",
                             kind="binary")
    if kind in ("text/xml", "application/xml") or text.lstrip().startswith("<"):
        return _html(body, url)
    return _checked(Extracted(text=text, kind="text"), body)


def _html(body: bytes, url: str) -> Extracted:
    import trafilatura

    main = trafilatura.extract(body, url=url or None, include_comments=False, include_tables=True,
                               favor_recall=True) or ""
    everything = trafilatura.html2txt(body) or ""
    metadata = trafilatura.extract_metadata(body)
    title = (metadata.title or "") if metadata else ""
    # A page too short for a main text (a short announcement) is read whole, navigation included.
    text = "\n".join(part for part in (title, main or everything) if part)
    return _checked(Extracted(text=text, kind="html"), body, everything)


def _checked(extracted: Extracted, body: bytes, whole: str | None = None) -> Extracted:
    """The extraction, unless the page is a wall or has no text."""
    whole = extracted.text if whole is None else whole
    if len(whole) < WALL_TEXT_CHARS:
        if _PASSWORD_FIELD.search(body):
            return Extracted(problem="login-wall", detail="the page asks for a password", kind=extracted.kind)
        for name, pattern in _WALLS:
            found = pattern.search(whole)
            if found:
                return Extracted(problem=name, detail=f"the page says {found.group(0)!r}", kind=extracted.kind)
    if not extracted.text.strip():
        return Extracted(problem="empty-body", detail="the page has no text", kind=extracted.kind)
    return extracted


def _pdf(body: bytes) -> Extracted:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages[:MAX_PDF_PAGES]]
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as error:
        return Extracted(problem="unreadable", detail=f"the PDF cannot be read: {type(error).__name__}: {error}",
                         kind="pdf")
    text = "\n".join(pages)
    if not text.strip():
        return Extracted(problem="pdf-without-text", detail=f"none of its {len(pages)} pages has a text layer",
                         kind="pdf")
    return Extracted(text=text, kind="pdf")


class TextCache:
    """What a body said, by the SHA-256 of the body, its content type and the hpckg version: a re-run that
    reads the same bytes (a 304 answer, an unchanged page) does not extract them again."""

    def __init__(self, folder: Path | None):
        self.folder = folder

    def extract(self, fetched, url: str = "") -> Extracted:
        """extract(fetched.body, fetched.content_type, url), remembered."""
        key = hashlib.sha256(f"{fetched.sha256} {fetched.content_type} {__version__}".encode()).hexdigest()
        path = self.folder / key[:2] / f"{key}.json" if self.folder else None
        if path is not None:
            try:
                return Extracted(**json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError):
                pass
        extracted = extract(fetched.body, fetched.content_type, url)
        if path is not None:
            from hpckg.verify.fetch import _atomic_write

            _atomic_write(path, json.dumps(dataclasses.asdict(extracted)).encode())
        return extracted
