"""`hpckg serve`: a SPARQL 1.1 endpoint and a linked-data website over the built store.

app.py is the Starlette application (routes, errors, CORS) that `hpckg serve` runs under uvicorn, urls.py
builds every path, sparql.py speaks the SPARQL protocol and formats, workers.py runs queries in killable
worker processes, cache.py keeps answers to repeated queries, views.py renders the HTML pages.
"""
