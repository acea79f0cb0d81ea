"""Pictures of deals and winning lines (:mod:`.pictures`), the charts of a results dataset
(:mod:`.charts`) and the Markdown report that gathers them (:mod:`.markdown`)."""
