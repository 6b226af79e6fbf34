"""Options shared by several commands: where the store is, and opening it for reading."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hpckg.project import Project

STORE_HELP = ("the store: a folder (embedded Oxigraph; default the project's .hpckg/store, see [tool.hpckg] "
              "store) or the query URL of a SPARQL 1.1 server")


def add_store_option(parser: argparse.ArgumentParser, *, memory: str | None = None, remote: bool = True,
                     help: str = STORE_HELP) -> None:
    """--store (and --memory, with its help text, where building in memory makes sense)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--store", default=None, metavar="PATH|URL" if remote else "PATH", help=help)
    if memory:
        group.add_argument("--memory", action="store_true", help=memory)


def store_location(args: argparse.Namespace, project: Project) -> str | Path | None:
    """What --store/--memory chose: None for memory, a URL string, or a folder (the project's by default)."""
    from hpckg.project import is_server_url

    if getattr(args, "memory", False):
        return None
    if args.store is None:
        return project.store  # a folder, or a URL string from the configuration
    if is_server_url(args.store):
        return args.store
    return Path(args.store)


def open_for_reading(args: argparse.Namespace, project: Project):
    """The store a read command works on: the project built in memory (--memory), remote, or the on-disk
    store."""
    from hpckg.build import populate
    from hpckg.store import Store, open_store

    location = store_location(args, project)
    if location is None:
        store = Store(None)
        populate(store, project)
        return store
    return open_store(location, read_only=True, credentials_file=project.store_credentials)
