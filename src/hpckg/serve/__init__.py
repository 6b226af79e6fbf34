"""`hpckg serve`: a SPARQL 1.1 endpoint and a linked-data website over the built store.

app.py mounts both on one Starlette application that `hpckg serve` runs under uvicorn: endpoint.py is the SPARQL
service's routes (protocol, editor, graph store, VoID, dumps, releases), pages/ the website (one module per page,
registered in pages.PAGES). service.py is what the routes work with (settings, rate limits, lanes, the page store),
middleware.py what runs around them (cached answers, CORS, nosniff, following builds), urls.py builds every path,
sparql.py speaks the SPARQL protocol and formats, workers.py runs queries in killable worker processes, cache.py
keeps answers to repeated queries, views.py renders the HTML pages.
"""
