"""What hpckg knows about particular SPARQL servers: one table of where each keeps its update and Graph Store
endpoints beside the query URL, and which HTTP authentication its writing endpoints want.

RemoteStore itself speaks only the standard protocols; the profile chosen here only fills in URLs and the
authentication scheme. The server is recognised from the query URL's path (`/sparql` is Virtuoso's,
`/query` Oxigraph server's, `/<dataset>/sparql` Fuseki's, `/repositories/<id>` GraphDB's);
HPCKG_STORE_SERVER=<name> chooses one explicitly. Credentials come
from HPCKG_STORE_USER and HPCKG_STORE_PASSWORD, or from the file the configuration's `store_credentials`
names (one line `user:password`), never from the command line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from hpckg.errors import StoreError

SERVER_VARIABLE = "HPCKG_STORE_SERVER"
GROUP_VARIABLE = "HPCKG_STORE_GRAPH_GROUP"  # "1": readers name the build's graph group (see graph_group_wanted)
USER_VARIABLE = "HPCKG_STORE_USER"
PASSWORD_VARIABLE = "HPCKG_STORE_PASSWORD"


@dataclass(frozen=True)
class ServerProfile:
    """Where a server keeps its endpoints and how its writes authenticate. `update` and `graph_store` are
    templates: {parent} is the query URL without its last path segment, {query} the query URL itself."""

    name: str
    recognise: str  # a regular expression on the query URL's path that identifies the server
    update: str
    graph_store: str
    auth: str  # "none", "basic" or "digest": what the update and graph store endpoints want
    graph_groups: bool = False  # can name a set of graphs by one IRI for a request's default graph (Virtuoso)
    # What the server wants before a query to join its patterns in the order written, for the queries whose
    # header asks for it (hpckg.query.PLAN_AS_WRITTEN); empty where there is no such switch or it is not needed.
    written_order: str = ""

    def endpoints(self, query_url: str) -> tuple[str, str]:
        """The update and graph store URLs of the server whose query URL is `query_url`."""
        query = query_url.split("?", 1)[0].rstrip("/")
        names = {"query": query, "parent": query.rsplit("/", 1)[0]}
        return self.update.format(**names), self.graph_store.format(**names)


# In the order they are tried; docs/external-stores.md shows each setup. Only oxigraph and virtuoso are tested
# against real servers (tests/test_remote_store.py, tests/test_virtuoso.py).
PROFILES: dict[str, ServerProfile] = {profile.name: profile for profile in (
    ServerProfile("virtuoso", recognise=r"^/sparql/?$", update="{parent}/sparql-auth",
                  graph_store="{parent}/sparql-graph-crud-auth", auth="digest", graph_groups=True,
                  written_order='DEFINE sql:select-option "order"'),
    ServerProfile("graphdb", recognise=r"/repositories/[^/]+/?$", update="{query}/statements",
                  graph_store="{query}/rdf-graphs/service", auth="basic"),
    ServerProfile("oxigraph", recognise=r"^/query/?$", update="{parent}/update", graph_store="{parent}/store",
                  auth="none"),
    ServerProfile("fuseki", recognise=r"^/[^/]+/(sparql|query)/?$", update="{parent}/update",
                  graph_store="{parent}/data", auth="basic"),
)}


def profile_for(query_url: str) -> ServerProfile:
    """The profile HPCKG_STORE_SERVER names, else the first whose pattern matches the query URL's path,
    else Oxigraph server's layout (the default of earlier versions)."""
    chosen = os.environ.get(SERVER_VARIABLE)
    if chosen:
        if chosen not in PROFILES:
            raise StoreError(f"{SERVER_VARIABLE}={chosen}: not a known SPARQL server; known: "
                             f"{', '.join(sorted(PROFILES))}")
        return PROFILES[chosen]
    path = urlsplit(query_url).path
    for profile in PROFILES.values():
        if re.search(profile.recognise, path):
            return profile
    return PROFILES["oxigraph"]


def graph_group_wanted() -> bool:
    """Whether readers name the build's graph group as their default graph (HPCKG_STORE_GRAPH_GROUP=1)
    instead of listing its graphs. Off by default: on Virtuoso 07.20.3229 the group made per-entity queries
    30-100x faster, but Virtuoso planned some others far worse through it. On the full import every canned
    query that answers within 60 s through the list now does through the group (`top500-list` by asking for
    the written order, hpckg.query.PLAN_AS_WRITTEN: 7 s, where it gave none in 120 s); at 10x each way
    answers four or three queries the other does not (docs/external-stores.md)."""
    chosen = os.environ.get(GROUP_VARIABLE, "").strip().lower()
    if chosen not in ("", "0", "1", "false", "true", "no", "yes"):
        raise StoreError(f"{GROUP_VARIABLE}={chosen}: say 1 (name the graph group) or 0 (list the graphs)")
    return chosen in ("1", "true", "yes")


def credentials(file: Path | None = None) -> tuple[str, str] | None:
    """(user, password) from the environment, else from `file` (one line `user:password`), else None."""
    user, password = os.environ.get(USER_VARIABLE), os.environ.get(PASSWORD_VARIABLE)
    if user and password is not None:
        return user, password
    if file is None:
        return None
    try:
        line = Path(file).read_text(encoding="utf-8").strip().splitlines()[0]
    except (OSError, IndexError) as error:
        raise StoreError(f"cannot read the store credentials from {file}: {error or 'empty file'}") from None
    user, sep, password = line.partition(":")
    if not sep or not user:
        raise StoreError(f"{file}: the store credentials are one line `user:password`")
    return user, password


# Virtuoso graph groups (one IRI standing for a set of graphs) are made by SQL procedures, which Virtuoso lets
# a SPARQL query call as sql: functions; run as the store's user on the authenticated endpoint (anonymous
# readers may not: SR186), they need no SQL connection. The `sql:DB.DBA.` spelling is refused. The quiet flag
# (1) makes creating an existing group or dropping a missing one no error.
GROUP_CREATE = 'SELECT (<sql:RDF_GRAPH_GROUP_CREATE>("{group}", 1) AS ?done) WHERE {{}}'
GROUP_INSERT = 'SELECT (<sql:RDF_GRAPH_GROUP_INS>("{group}", ?g) AS ?done) WHERE {{ VALUES ?g {{ {members} }} }}'
GROUP_DROP = 'SELECT (<sql:RDF_GRAPH_GROUP_DROP>("{group}", 1) AS ?done) WHERE {{}}'
