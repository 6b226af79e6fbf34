"""The one Jinja2 environment every page is rendered with: the templates in hpckg/templates/, found through
the installed package (a wheel works as well as a checkout).

HTML templates (*.html) are autoescaped, so a value is escaped unless a template or this module marks it as
markup; Markdown templates (*.md) are not, and escape each value with the `md` filter instead. A variable a
template uses but the caller did not pass is an error (StrictUndefined), never an empty string.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from hpckg import numbers

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def md_escape(value: object) -> str:
    """Escape Markdown syntax in a value (table pipes included) and keep it on one line."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))


def md_url(href: str) -> str:
    """A link target safe inside Markdown's (...)."""
    return (href.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
            .replace("<", "%3C").replace(">", "%3E"))


def linkable(href: object) -> bool:
    """True for http(s) and site-relative URLs: anything else (javascript:, data:, //host) is shown as text."""
    return (isinstance(href, str) and href.startswith(("http://", "https://", "/"))
            and not href.startswith("//"))


def web_linkable(href: object) -> bool:
    """True for absolute http(s) URLs, the only links a Markdown page carries."""
    return isinstance(href, str) and href.startswith(("http://", "https://"))


# An inline Markdown link as imported text writes it: [text](url), the URL sometimes in doubled parentheses;
# and a code span, as the canned queries' comments write a command: `hpckg query NAME`.
_MARKDOWN_LINK = re.compile(r"\[([^\]\n]+)\]\(\(?(https?://[^\s()]+)\)?\)|`([^`\n]+)`")


def inline_markdown(value: object) -> Markup:
    """Text with inline Markdown links (Epoch AI's notes) and code spans (the canned queries' comments) as
    HTML: each http(s) link an <a>, each code span a <code>, everything else escaped, so a value can add a link
    or code and nothing else."""
    text = str(value)
    parts, last = [], 0
    for match in _MARKDOWN_LINK.finditer(text):
        parts.append(escape(text[last:match.start()]))
        if match.group(3) is not None:
            parts.append(Markup("<code>{}</code>").format(match.group(3)))
        else:
            parts.append(Markup('<a href="{}">{}</a>').format(match.group(2), match.group(1)))
        last = match.end()
    parts.append(escape(text[last:]))
    return Markup("").join(parts)


def number(value: int | float) -> str:
    """A count with thousands separators ('12,345'), any other number to four significant digits
    (hpckg.numbers.number)."""
    return numbers.number(value)


def script_json(data: bytes | str) -> Markup:
    """JSON (such as JSON-LD) to embed in a <script> element: '<', '>' and '&' become JSON escapes, so no
    value can close the element or open a comment, and the text still parses as the same JSON."""
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    return Markup(data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


# The one script any page carries, inline so no file is fetched; the Content-Security-Policy allows exactly
# this text by its hash and no other script. Enhancement only: every page works without JavaScript.
EDITOR_SCRIPT = """
// Ctrl+Enter submits the query editor.
document.addEventListener("keydown", function (event) {
  if (event.ctrlKey && event.key === "Enter" && event.target.form) { event.target.form.submit(); }
});
"""


def content_security_policy() -> str:
    """The policy every HTML response carries: nothing from elsewhere, no script but the one above, inline
    styles (the pages' own stylesheet), forms only to this server, and no framing."""
    digest = base64.b64encode(hashlib.sha256(EDITOR_SCRIPT.encode("utf-8")).digest()).decode("ascii")
    return ("default-src 'none'; "
            f"script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src 'self' data:; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


@functools.cache
def environment() -> Environment:
    from hpckg.page import text  # the fixed wording of system pages (hpckg.page renders with this module)
    from hpckg.page.model import ABSENT

    env = Environment(
        loader=PackageLoader("hpckg", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=True, default=False),
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(md=md_escape, md_url=md_url, number=number, script_json=script_json,
                       inline_markdown=inline_markdown)
    env.tests.update(linkable=linkable, web_linkable=web_linkable)
    env.globals.update(t=text, ABSENT=ABSENT, editor_script=Markup(EDITOR_SCRIPT))
    return env


def compile_templates() -> int:
    """Compile every template now (0.2 s in all; the system page's alone 60 ms of its first visit), so the
    server's first visitors do not wait for it; returns how many there are."""
    env = environment()
    names = env.list_templates()
    for name in names:
        env.get_template(name)
    return len(names)


def render(name: str, /, **context: object) -> str:
    """Render the template `name` (such as "system.md") with the given variables."""
    return environment().get_template(name).render(**context)
