"""`hpckg serve`: a SPARQL 1.1 endpoint and a linked-data website over the built store.

app.py routes requests, urls.py builds every path, sparql.py speaks the SPARQL protocol and formats,
workers.py runs queries in killable worker processes, views.py renders the HTML pages.
"""
