"""Turtle data contributions: scaffold a new system file, check a contribution in the context of the whole
graph, and summarise how the curated data changed between two git revisions."""
