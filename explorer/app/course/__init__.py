"""The course model: AppState and ViewState, its compute on the runner, the seed prefetch, the topic views' settings and jobs."""
