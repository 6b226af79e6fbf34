"""hpckg: the knowledge graph of the world's supercomputers and AI training clusters."""

__version__ = "0.1.0"
