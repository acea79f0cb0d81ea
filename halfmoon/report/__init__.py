"""Pictures of deals and winning lines, and the Markdown report with its charts."""
