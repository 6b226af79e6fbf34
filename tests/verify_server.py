"""A real HTTP server on 127.0.0.1 serving the fixture pages `hpckg verify` is tested against (and the
benchmark's thousands of pages): one page per case, in a thread, with the little state some cases need
(a page that changes, a host that answers 429 once, a request log)."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Callable
from urllib.parse import urlsplit

NAV = "<nav><a href='/'>Home</a> | <a href='/news'>News</a> | <a href='/about'>About</a> | Contact</nav>"
FILLER = ("The machine room was refurbished for the installation, with new cooling loops and power feeds. "
          "Researchers from several institutes will share the time, and allocations open next quarter. ") * 3


def html(title: str, *paragraphs: str) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in (*paragraphs, FILLER))
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{NAV}<main><article>"
            f"<h1>{title}</h1>{body}</article></main><footer>Copyright Example Lab. Privacy. Terms.</footer>"
            "</body></html>").encode()


def pdf(text: str | None) -> bytes:
    """A one-page PDF whose text layer says `text` (None: a page with no text, as a scan has)."""
    content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode() if text else b""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


FULL = ("Testbed Alpha, the new cluster at Example Lab, has 2,416 Zeta Z900 SXM 96GB accelerators in 302 nodes, "
        "joined by a fast fabric.")

Response = tuple[int, dict[str, str], bytes]

# An arXiv abstract page as arxiv.org lays it out: a header, a search form, the title and authors, the
# abstract in a blockquote, and a sidebar of links and citation tools around it.
ARXIV = (b"""<!DOCTYPE html><html lang="en"><head><title>[2611.00001] Operating Testbed Alpha</title>
<meta name="citation_title" content="Operating Testbed Alpha: Lessons from a Year of LLM Training" /></head>
<body><header><div id="cu-logo">Cornell University</div><a href="https://arxiv.org/">arXiv</a>
<form><input name="query" placeholder="Search..."><button>Search</button></form></header>
<div id="content"><div id="abs-outer"><div class="leftcolumn"><div class="subheader"><h1>Computer Science &gt;
Distributed, Parallel, and Cluster Computing</h1></div><div id="content-inner"><div id="abs">
<div class="dateline">[Submitted on 2 Nov 2026]</div>
<h1 class="title mathjax"><span class="descriptor">Title:</span>Operating Testbed Alpha: Lessons from a Year of
LLM Training</h1><div class="authors"><span class="descriptor">Authors:</span><a href="#">A. Author</a>,
<a href="#">B. Author</a></div>
<blockquote class="abstract mathjax"><span class="descriptor">Abstract:</span>We report a year of operating
Testbed Alpha, a cluster of 2,416 Zeta Z900 SXM 96GB accelerators, for large language model training. We
characterise its failures, its job mix and its utilisation, and describe the scheduler changes that raised the
share of useful GPU time. The trace and tools are released with the paper.</blockquote>
<div class="metatable"><table><tr><td>Subjects:</td><td>Distributed, Parallel, and Cluster Computing (cs.DC)</td>
</tr><tr><td>Cite as:</td><td>arXiv:2611.00001 [cs.DC]</td></tr></table></div></div></div></div>
<div class="extra-services"><h2>Access Paper:</h2><ul><li>View PDF</li><li>HTML (experimental)</li>
<li>TeX Source</li></ul><h3>References &amp; Citations</h3><ul><li>NASA ADS</li><li>Google Scholar</li>
<li>Semantic Scholar</li></ul><div>Bookmark</div></div></div></div>
<footer><a href="#">About</a> <a href="#">Help</a> <a href="#">Contact</a> <a href="#">Subscribe</a>
<a href="#">Copyright</a> <a href="#">Privacy Policy</a></footer></body></html>""")


class FixtureServer:
    """Routes: path -> (status, headers, body) or a function of the request handler giving one."""

    def __init__(self, routes: dict[str, Response | Callable[[http.server.BaseHTTPRequestHandler], Response]]):
        self.routes = routes
        self.log: list[tuple[str, dict[str, str]]] = []
        self.state: dict[str, object] = {}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                path = urlsplit(self.path).path
                server.log.append((path, dict(self.headers)))
                route = server.routes.get(path)
                if route is None:
                    status, headers, body = 404, {"Content-Type": "text/html"}, b"<html><body>Not here</body></html>"
                else:
                    status, headers, body = route(self) if callable(route) else route
                try:
                    self.send_response(status)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    if "Content-Length" not in headers and "X-No-Length" not in headers:
                        self.send_header("Content-Length", str(len(body)))
                    if "X-No-Length" in headers:
                        self.send_header("Connection", "close")
                        self.close_connection = True
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> FixtureServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def requested(self, path: str) -> list[dict[str, str]]:
        return [headers for p, headers in self.log if p == path]


def page(body: bytes, content_type: str = "text/html; charset=utf-8", **headers: str) -> Response:
    return 200, {"Content-Type": content_type, **headers}, body


def fixture_routes(server_state: dict) -> dict:
    """The test cases' pages, by path."""

    def slow(handler) -> Response:
        time.sleep(5)
        return page(html("Late", FULL))

    def busy(handler) -> Response:
        server_state["busy"] = int(server_state.get("busy", 0)) + 1
        if server_state["busy"] == 1:
            return 429, {"Retry-After": "1", "Content-Type": "text/plain"}, b"slow down"
        return page(html("Testbed Alpha news", "Testbed Alpha opened to users this week."))

    def etag(handler) -> Response:
        if handler.headers.get("If-None-Match") == '"v1"':
            return 304, {"ETag": '"v1"'}, b""
        return page(html("Testbed Alpha status", "Testbed Alpha is in production."), ETag='"v1"')

    def changing(handler) -> Response:
        version = server_state.get("version", 1)
        return page(html("Testbed Alpha update", f"Testbed Alpha, revision {version} of this announcement."))

    def huge(handler) -> Response:
        return 200, {"Content-Type": "text/html", "X-No-Length": "1"}, b"<html><body>" + b"x" * 300_000

    return {
        "/robots.txt": page(b"User-agent: *\nDisallow: /private/\n", "text/plain"),
        "/full.html": page(html("Testbed Alpha enters service", FULL)),
        "/system-only.html": page(html("Testbed Alpha opens", "Testbed Alpha opens to researchers in spring.")),
        "/nothing.html": page(html("Weather report", "Rain is expected on Tuesday, with sun later in the week.")),
        "/count-comma.html": page(html("Testbed Alpha", "Testbed Alpha runs on 2,416 GPUs.")),
        "/count-plain.html": page(html("Testbed Alpha", "Testbed Alpha runs on 2416 GPUs.")),
        "/count-k.html": page(html("Testbed Alpha", "Testbed Alpha runs on about 2.4k GPUs.")),
        "/count-far.html": page(html("Testbed Alpha", "Testbed Alpha was named after a river.",
                                     "Unrelated: " + "the hall seats many visitors every day. " * 12,
                                     "The car park has 2416 spaces.")),
        "/moved": (301, {"Location": "/full.html"}, b""),
        "/loop-a": (302, {"Location": "/loop-b"}, b""),
        "/loop-b": (302, {"Location": "/loop-a"}, b""),
        "/to-private": (302, {"Location": "http://10.20.30.40/internal"}, b""),
        "/missing": (404, {"Content-Type": "text/html"}, b"<html><body>Not found</body></html>"),
        "/gone": (410, {"Content-Type": "text/html"}, b"<html><body>Gone</body></html>"),
        "/slow": slow,
        "/huge": huge,
        "/paper.pdf": page(pdf("Testbed Alpha uses 2416 Zeta Z900 SXM 96GB accelerators."), "application/pdf"),
        "/scan.pdf": page(pdf(None), "application/pdf"),
        "/private/secret.html": page(html("Testbed Alpha secret", FULL)),
        "/etag.html": etag,
        "/busy": busy,
        "/changing.html": changing,
        "/login.html": page(b"<html><body><h1>Sign in</h1><form><input name=user>"
                            b"<input type=password name=pw></form></body></html>"),
        "/cookies.html": page(b"<html><body><p>We use cookies. Accept all cookies to continue.</p>"
                              b"<button>Accept</button></body></html>"),
        "/abs/2611.00001": page(ARXIV),
        "/paywall.html": page(b"<html><body><h1>Testbed Alpha goes live</h1><p>Testbed Alpha ...</p>"
                              b"<p>Subscribe now to continue reading. Already a subscriber? Log in.</p></body></html>"),
        "/always-busy": (429, {"Retry-After": "3600", "Content-Type": "text/plain"}, b"come back in an hour"),
        "/empty": page(b""),
        "/image.png": page(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64, "image/png"),
    }
