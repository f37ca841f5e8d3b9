"""Writing results: atomic files, figures (matplotlib), Markdown and HTML reports."""
