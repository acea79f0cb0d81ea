"""The build: numba's cache kept in step with the sources, and the kernels' warm-up groups."""
