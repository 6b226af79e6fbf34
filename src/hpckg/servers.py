"""What hpckg knows about particular SPARQL servers: one table of where each keeps its update and Graph Store
endpoints beside the query URL, and which HTTP authentication its writing endpoints want.

RemoteStore itself speaks only the standard protocols; the profile chosen here only fills in URLs and the
authentication scheme. The server is recognised from the query URL's last path segment (`/sparql` is
Virtuoso's, `/query` Oxigraph server's); HPCKG_STORE_SERVER=<name> chooses one explicitly. Credentials come
from HPCKG_STORE_USER and HPCKG_STORE_PASSWORD, or from the file the configuration's `store_credentials`
names (one line `user:password`), never from the command line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hpckg.errors import StoreError

SERVER_VARIABLE = "HPCKG_STORE_SERVER"
USER_VARIABLE = "HPCKG_STORE_USER"
PASSWORD_VARIABLE = "HPCKG_STORE_PASSWORD"


@dataclass(frozen=True)
class ServerProfile:
    """Where a server keeps its endpoints, relative to the query URL's parent, and how writes authenticate."""

    name: str
    query: str  # the query URL's last path segment that identifies the server
    update: str  # the SPARQL Update endpoint, beside the query URL
    graph_store: str  # the Graph Store HTTP Protocol endpoint, beside the query URL
    auth: str  # "none", "basic" or "digest": what the update and graph store endpoints want

    def endpoints(self, query_url: str) -> tuple[str, str]:
        """The update and graph store URLs of the server whose query URL is `query_url`."""
        root = query_url.split("?", 1)[0].rsplit("/", 1)[0]
        return f"{root}/{self.update}", f"{root}/{self.graph_store}"


# Fuseki and GraphDB keep one dataset per path (/<dataset>/query, /repositories/<repo>); their rows assume
# the query URL given is that dataset's; docs/external-stores.md shows each setup.
PROFILES: dict[str, ServerProfile] = {profile.name: profile for profile in (
    ServerProfile("oxigraph", query="query", update="update", graph_store="store", auth="none"),
    ServerProfile("virtuoso", query="sparql", update="sparql-auth", graph_store="sparql-graph-crud-auth",
                  auth="digest"),
    ServerProfile("fuseki", query="sparql", update="update", graph_store="data", auth="basic"),
)}


def profile_for(query_url: str) -> ServerProfile:
    """The profile HPCKG_STORE_SERVER names, else the one whose query segment ends `query_url`, else
    Oxigraph server's layout (the default of earlier versions)."""
    chosen = os.environ.get(SERVER_VARIABLE)
    if chosen:
        if chosen not in PROFILES:
            raise StoreError(f"{SERVER_VARIABLE}={chosen}: not a known SPARQL server; known: "
                             f"{', '.join(sorted(PROFILES))}")
        return PROFILES[chosen]
    last = query_url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    for profile in PROFILES.values():
        if profile.query == last:
            return profile  # the first row with that segment: /sparql is Virtuoso's
    return PROFILES["oxigraph"]


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
