"""Numbered SQL migrations, shipped inside the package so an installed trag-tui can upgrade any index file."""
