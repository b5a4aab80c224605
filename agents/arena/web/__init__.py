"""`v1919 serve`: play and watch games in the browser (the `web` extra: Starlette and uvicorn).
app.py is the application, store.py keeps the games in SQLite, page.py has the pages, serve.py the
command (docs/web.md). It may import v1919_env (the game, its pictures) and the agents package's
registry, play loop helpers and command errors; nothing imports it but the CLI, when `serve` runs."""
