"""The Contribute page (/contribute): paste a Turtle draft, or fill a small form for a system, and get back
on the same page `hpckg check`'s review (the same problems, codes and fixes, at draft.ttl:line:column) and
the page of each system, site, organisation and part the draft defines, rendered as the site renders it,
from the draft in the context of the store the server serves (hpckg.contribute.check.check_draft).

Nothing is kept: the draft lives in the request, its review graph in memory until the answer is written;
no file, no store write, no cookie. The form is a plain POST (works without JavaScript); a POST from another
site's page is refused (Origin / Sec-Fetch-Site), the body is capped (413), each client has a small token
bucket of checks (429), and checks run one at a time in a thread (503 when one waits too long), under
the draft's size cap, which bounds what a review reads.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import math
import re
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from hpckg.contribute.check import KINDS, check_draft
from hpckg.contribute.neighbourhood import SystemNames, TooBroad
from hpckg.contribute.scaffold import draft_system
from hpckg.contribute.scaffold_claim import UNDESCRIBED, StoreResolver, Suggester, describe_source, draft_claim
from hpckg.datafiles.report import CheckReport
from hpckg.errors import InputError
from hpckg.namespaces import hpc
from hpckg.references import kind_of
from hpckg.serve.responses import INTERNAL, HttpError, html_response
from hpckg.serve.views import Html, Views
from hpckg.vocabulary import vocabulary

if TYPE_CHECKING:
    from hpckg.store import GraphStore

logger = logging.getLogger(__name__)
MAX_DRAFT = 256 * 1024  # bytes of form body: far more than a system's file (a few kB)
BODY_SECONDS = 10.0
CHECKS_BURST = 5  # checks a client may run at once before waiting for the bucket to refill
CHECKS_PER_MINUTE = 6.0
WAIT_SECONDS = 30.0  # how long a check waits for the one running before 503
MAX_AROUND = 200_000  # triples of the served graph a review may read (a system's neighbourhood: about 1,000)
DRAFT_NAME = "draft.ttl"
PAGE_KINDS = {"system": "System", "site": "Site", "org": "Organisation", "part": "PartModel"}
FORM_FIELDS = ("name", "operator", "site", "country", "part", "nodes", "per_node", "quantity", "source_url", "tier",
               "as_of")
CLAIM_FIELDS = ("record", "property", "value", "source_url", "tier", "as_of", "basis", "source_title", "source_issued",
                "source_kind", "source_creator", "source_publisher", "change")
# The bases and source kinds a contributor chooses from (the vocabulary's notations; the others are written by
# importers and rules: imported, derived, machine-generated, dataset-cites-record, dataset-gives-no-source, a
# page a dataset cites).
CONTRIBUTED_BASES = ("operator-stated", "measured", "reported", "estimated")
IMPORTER_SOURCE_KINDS = ("cited-by-dataset",)
TIERS = ("verified", "reported", "lead")


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after


class TokenBucket:
    """Per-client checks: CHECKS_BURST at once, refilled at CHECKS_PER_MINUTE."""

    def __init__(self, burst: float = CHECKS_BURST, per_minute: float = CHECKS_PER_MINUTE):
        self.burst, self.rate = burst, per_minute / 60.0
        self._levels: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, client: str) -> int | None:
        """Take a token: None when granted, else the seconds until one is available."""
        now = time.monotonic()
        with self._lock:
            level, then = self._levels.get(client, (self.burst, now))
            level = min(self.burst, level + (now - then) * self.rate)
            if level < 1:
                self._levels[client] = (level, now)
                return max(1, math.ceil((1 - level) / self.rate))
            self._levels[client] = (level - 1, now)
            if len(self._levels) > 10_000:  # forget clients whose bucket is full again
                self._levels = {c: (lv, t) for c, (lv, t) in self._levels.items()
                                if lv + (now - t) * self.rate < self.burst}
            return None


@dataclass
class Preview:
    """One page the draft defines, rendered as the site renders it."""

    kind: str
    iri: str
    title: str
    body: Markup


@dataclass
class Outcome:
    report: CheckReport | None = None
    turtle: str = ""
    pages: list[Preview] = field(default_factory=list)
    form: dict[str, str] = field(default_factory=lambda: dict.fromkeys(FORM_FIELDS, ""))
    claim_form: dict[str, str] = field(default_factory=lambda: dict.fromkeys(CLAIM_FIELDS, ""))
    form_error: str | None = None
    written: bool = False  # the Turtle was written from one of the forms (shown apart from the review)


def _main_of(page: str) -> str:
    """What a page shows in its <main>, its headings two levels down (it sits under the review's h2)."""
    match = re.search(r"<main>(.*)</main>", page, re.S)
    body = match.group(1) if match else ""
    return re.sub(r"<(/?)h([1-6])\b", lambda m: f"<{m.group(1)}h{min(6, int(m.group(2)) + 2)}", body)


def previews(store: GraphStore, defined: list[str], base_iri: str) -> list[Preview]:
    """The site's page of each system, site, organisation and part in `defined`, read from the review graph."""
    views = Views(store, base_iri)
    found = []
    for iri in defined:
        kind = kind_of(iri)
        if kind not in PAGE_KINDS:
            continue
        slug = iri.rsplit("/", 1)[-1]
        page = views.entity(kind, slug, iri, b"{}")
        if page is None:
            continue
        found.append(Preview(kind, iri, page.title, Markup(_main_of(page.render()))))
    return found


def defined_entities(report: CheckReport) -> list[str]:
    """What the draft adds, in the order of the review's headings (systems first)."""
    order = ["systems", "sites", "organisations", "parts"]
    return [iri for heading in order for iri in report.additions.entities.get(heading, [])]


def form_turtle(form: dict[str, str], known) -> str:
    """The Turtle of `hpckg new system` for the form's fields, with the tier and as-of given."""
    name = form.get("name", "").strip()
    if not name:
        raise InputError("give the system's name")
    operator = form.get("operator", "").strip()
    country = form.get("country", "").strip()
    if not operator or not country:
        raise InputError("give the operator and the country (an ISO code such as GB)")
    numbers = {}
    for key in ("nodes", "per_node", "quantity"):
        text = form.get(key, "").strip()
        if text:
            if not text.isdigit():
                raise InputError(f"{key.replace('_', ' ')} must be a whole number, not {text!r}")
            numbers[key] = int(text)
    tier = form.get("tier", "").strip() or None
    if tier is not None and tier not in TIERS:
        raise InputError(f"the tier is one of {', '.join(TIERS)}")
    return draft_system(name, operator=operator, country=country, part=form.get("part", "").strip() or None,
                        nodes=numbers.get("nodes"), per_node=numbers.get("per_node"),
                        quantity=numbers.get("quantity"),
                        site=form.get("site", "").strip() or None,
                        source_url=form.get("source_url", "").strip() or None, tier=tier,
                        as_of=form.get("as_of", "").strip() or None, known=known, today=dt.date.today())


def claim_turtle(form: dict[str, str], store: GraphStore, ontology_dir, suggest: Suggester | None = None) -> str:
    """The Turtle of `hpckg new claim` for the claim form's fields: the record and an entity value found by name
    or sys:/site:/orgn:/part: name in the store the site serves (`suggest`: what a name no record has may
    mean)."""
    record, prop, value = (form.get(k, "").strip() for k in ("record", "property", "value"))
    if not record or not prop or not value:
        raise InputError("give the record (its name, or a name such as sys:kalos), the property and the value")
    tier = form.get("tier", "").strip() or None
    if tier is not None and tier not in TIERS:
        raise InputError(f"the tier is one of {', '.join(TIERS)}")
    basis = form.get("basis", "").strip() or None
    if basis is not None and basis not in CONTRIBUTED_BASES:
        raise InputError(f"the basis is one of {', '.join(CONTRIBUTED_BASES)}")
    source_url = form.get("source_url", "").strip() or None
    find = StoreResolver(store, suggest)
    described = describe_source(ontology_dir, find, title=form.get("source_title"), kind=form.get("source_kind"),
                                issued=form.get("source_issued"), creator=form.get("source_creator"),
                                publisher=form.get("source_publisher"))
    if source_url is None and described != UNDESCRIBED:
        raise InputError("the source's title, date, kind, creator and publisher describe a new source: give its URL")
    return draft_claim(ontology_dir, find, record, prop=prop, value=value, source_url=source_url, tier=tier,
                       as_of=form.get("as_of", "").strip() or None, basis=basis, today=dt.date.today(),
                       described=described, change=form.get("change"))


class ContributePage:
    """The /contribute handlers, bound to the server's Service."""

    def __init__(self, service, client_of):
        self.service = service
        self.client_of = client_of
        self.bucket = TokenBucket() if service.settings.rate_limit > 0 else None
        self.running = threading.BoundedSemaphore(1)
        self._names: tuple[object, SystemNames] | None = None  # (store, its system names), kept in memory

    def names(self, store: GraphStore) -> SystemNames:
        """The system names of the store generation being served, indexed once per generation (in memory:
        the page writes no file)."""
        if self._names is None or self._names[0] is not store:
            self._names = (store, SystemNames.build(store))
        return self._names[1]

    def page(self, outcome: Outcome | None = None) -> Html:
        outcome = outcome or Outcome()
        vocab = vocabulary(self.service.settings.project.ontology_dir)
        concepts = {prop: vocab.scheme_of_value(hpc(prop)).concepts for prop in ("basis", "sourceKind")}
        return Html("Contribute", "contribute.html", {
            "outcome": outcome, "tiers": TIERS, "max_draft": MAX_DRAFT, "draft_name": DRAFT_NAME,
            "kinds": KINDS, "claim_properties": sorted((p.iri.rsplit("#", 1)[-1], p.label)
                                                       for p in vocab.properties.values() if p.is_claim_property),
            "bases": [(c.notation, c.label) for c in concepts["basis"] if c.notation in CONTRIBUTED_BASES],
            "source_kinds": [(c.notation, c.label) for c in concepts["sourceKind"]
                             if c.notation not in IMPORTER_SOURCE_KINDS]})

    async def get(self, request: Request) -> Response:
        return html_response(self.page())

    async def post(self, request: Request) -> Response:
        try:
            self._same_site(request)
            form = await self._form(request)
            if self.bucket is not None:
                retry = self.bucket.take(self.client_of(request))
                if retry is not None:
                    raise Refused(429, "rate-limited", f"too many checks from this address; try again in {retry} s",
                                  retry)
            outcome = await run_in_threadpool(self._review, form)
        except Refused as refused:
            headers = {"Retry-After": str(refused.retry_after)} if refused.retry_after else None
            raise HttpError(refused.status, refused.code, refused.message, headers=headers) from None
        except ClientDisconnect:
            return Response(status_code=400)
        except HttpError:
            raise
        except Exception:  # noqa: BLE001 - answered in the error shape, never with the exception's text
            logger.exception("internal error answering POST %s", request.url.path)
            raise HttpError(500, "internal", INTERNAL) from None
        return html_response(self.page(outcome))

    @staticmethod
    def _same_site(request: Request) -> None:
        """Refuse a POST another site's page makes a visitor's browser send (no state to forge, but no
        reason to run checks for other sites either)."""
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            raise Refused(403, "cross-site", "the Contribute form is only accepted from this site's own page")
        origin = request.headers.get("origin")
        if origin:  # "null" (a sandboxed frame, a data: URL, a file) is no page of this site either
            host = urllib.parse.urlsplit(origin).netloc
            if origin == "null" or host != request.headers.get("host"):
                raise Refused(403, "cross-site", "the Contribute form is only accepted from this site's own page")

    @staticmethod
    async def _form(request: Request) -> dict[str, str]:
        media = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
        if media != "application/x-www-form-urlencoded":
            raise Refused(415, "unsupported-media-type", "send the Contribute form as a form "
                          "(application/x-www-form-urlencoded)")
        length = request.headers.get("content-length")
        if length is not None and length.strip().isdigit() and int(length) > MAX_DRAFT:
            raise Refused(413, "too-large", f"the draft is larger than {MAX_DRAFT // 1024} KiB; check one "
                          "system's file at a time, or run `hpckg check` locally")
        chunks, size = [], 0
        try:
            async with asyncio.timeout(BODY_SECONDS):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > MAX_DRAFT:
                        raise Refused(413, "too-large", f"the draft is larger than {MAX_DRAFT // 1024} KiB")
                    chunks.append(chunk)
        except TimeoutError:
            raise Refused(408, "body-timeout", f"the form did not arrive within {BODY_SECONDS:g} s") from None
        try:
            fields = urllib.parse.parse_qs(b"".join(chunks).decode("utf-8"), keep_blank_values=True,
                                           errors="strict")
        except UnicodeDecodeError:
            raise Refused(400, "not-utf8", "the form is not UTF-8") from None
        return {key: values[0] for key, values in fields.items() if values}

    def _review(self, form: dict[str, str]) -> Outcome:
        service = self.service
        action = form.get("action")
        outcome = Outcome(form={k: form.get(k, "") if action == "form" else "" for k in FORM_FIELDS},
                          claim_form={k: form.get(k, "") if action == "claim" else "" for k in CLAIM_FIELDS})
        store = service.store  # the generation this request started on
        if action in ("form", "claim"):
            try:
                outcome.turtle = (form_turtle(form, lambda iri: service.views.exists(iri)) if action == "form"
                                  else claim_turtle(form, store, service.settings.project.ontology_dir,
                                                    lambda text, classes: service.prepared.search_index()
                                                    .close_names(text, classes)))
            except InputError as error:
                outcome.form_error = str(error)
                return outcome
            outcome.written = True
        else:
            outcome.turtle = form.get("turtle", "")
        if not outcome.turtle.strip():
            outcome.form_error = "paste a Turtle draft, or fill in the system form"
            return outcome
        if not self.running.acquire(timeout=WAIT_SECONDS):
            raise Refused(503, "busy", "another check is running; try again in a moment", 5)
        try:
            report, context = check_draft(outcome.turtle.encode("utf-8"), store, service.settings.project,
                                          name=DRAFT_NAME, names=self.names(store), limit=MAX_AROUND)
            outcome.report = report
            if context is not None:
                outcome.pages = previews(context.store, defined_entities(report), service.settings.base_iri)
        except TooBroad as error:
            outcome.report, outcome.form_error = None, str(error)
        finally:
            self.running.release()
        return outcome


__all__ = ["ContributePage", "TokenBucket"]
