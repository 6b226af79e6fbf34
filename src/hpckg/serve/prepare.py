"""A build's last step before it switches the store to a new generation: the website's figures of that generation
computed and kept on disk (hpckg.serve.diskcache), so that a server opening it, or following the build to it,
serves its first visitors from them instead of computing them while they wait (minutes on the full graph: the
home page's figures, the system and search indexes, the charts, the newest list and its statistics, the canned
queries' answers). What only warms a process, and the older editions' statistics (about seven minutes on the full
graph, needed only by the over-time tables), stay with the server's background (Prepared.steps).

Best effort: a figure that fails here is computed by the server as before, and the build goes on.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hpckg.namespaces import BASE
from hpckg.project import Project
from hpckg.publish.settings import publisher_settings
from hpckg.serve.diskcache import for_generation, pages_folder
from hpckg.serve.precompute import Prepared
from hpckg.serve.publication import Publication
from hpckg.serve.service import Settings, background_worker
from hpckg.serve.views import Views
from hpckg.store import Store


def prepare_generation(project: Project, generation: Path, *, store_path: Path, releases: Path | None = None,
                       base_iri: str = BASE, progress: Callable[[str], None] | None = None) -> dict[str, float]:
    """Compute and keep on disk the figures of the finished generation folder `generation` of the store at
    `store_path`, as a server with the default settings (`base_iri`, the releases in `releases`, its dumps beside
    the store) would; the seconds each step took."""
    store = Store(generation, read_only=True)
    try:
        disk = for_generation(pages_folder(project, store_path), store.generation_id(), base_iri, writable=False,
                              project=project)
        publication = Publication(publisher_settings(project.publisher),
                                  store_path.with_name(store_path.name + ".dumps"), releases)
        # As many query workers as cores: nothing else runs while a build prepares
        worker = background_worker(Settings(project=project, store_path=store_path), generation,
                                   size=max(1, min(4, os.cpu_count() or 1)))
        prepared = Prepared(Views(store, base_iri), lambda: 0, project, disk, publication, generation, worker)
        prepared.warm(at_build=True, progress=progress)
        return prepared.timings
    finally:
        store.close()
