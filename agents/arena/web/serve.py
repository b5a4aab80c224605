"""`v1919 serve`: the web app on uvicorn, bound to 127.0.0.1 unless told otherwise with a token."""
from __future__ import annotations

import ipaddress
import os
import secrets

from agents.arena.commands import CommandError   # printed as one line by v1919

LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def serve_settings(args) -> dict:
    """The checked settings of `v1919 serve` (CommandError for a refused combination): a host that is
    not a loopback address needs --allow-remote, and then every request needs the token (--token,
    or one made here and printed)."""
    if not 0 < args.port < 65536:
        raise CommandError(f"--port must be in 1..65535, got {args.port}")
    if args.bot_delay < 0:
        raise CommandError(f"--bot-delay must be 0 or more seconds, got {args.bot_delay}")
    local = is_loopback(args.host)
    if not local and not args.allow_remote:
        raise CommandError(f"--host {args.host} is reachable from other machines: add --allow-remote (every "
                         f"request then needs a token; --token sets it)")
    token = args.token
    if token is not None and len(token) < 16:
        raise CommandError("--token must be at least 16 characters")
    if not local and token is None:
        token = secrets.token_urlsafe(24)
    hosts = None if not local else ["127.0.0.1", "localhost", "[::1]", "::1"]
    db = os.path.expanduser(args.db)
    return {"host": args.host, "port": args.port, "db": db, "token": token, "allowed_hosts": hosts,
            "agents": tuple(args.agent) if args.agent else None, "bot_delay": args.bot_delay,
            "analysis": getattr(args, "analysis", None), "records": list(getattr(args, "records", None) or [])}


def cmd_serve(args) -> int:
    try:
        import uvicorn
        from .analysis import DEFAULT_ANALYSIS
        from .app import DEFAULT_AGENTS, create_app
    except ImportError as e:
        raise CommandError(f"v1919 serve needs the web extra: pip install -e '.[web]' ({e})") from None
    s = serve_settings(args)
    import sqlite3

    folder = os.path.dirname(os.path.abspath(s["db"]))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise CommandError(f"--db {s['db']}: cannot make its folder {folder} ({e.strerror or e})") from None
    try:
        app = create_app(s["db"], warm_analysis=True, agents=s["agents"] or DEFAULT_AGENTS, token=s["token"],
                         allowed_hosts=s["allowed_hosts"], bot_delay=s["bot_delay"],
                         analysis=s["analysis"] or DEFAULT_ANALYSIS, records=s["records"])
    except ValueError as e:         # an agent or analysis spec that does not build, a records file that is not one
        raise CommandError(str(e)) from None
    except (sqlite3.Error, OSError) as e:
        raise CommandError(f"--db {s['db']}: cannot open it as a SQLite database ({e})") from None
    shown = f"[{s['host']}]" if ":" in s["host"] else s["host"]
    url = f"http://{shown}:{s['port']}/" + (f"?token={s['token']}" if s["token"] else "")
    print(f"v1919 serve: games kept in {s['db']}; open {url}", flush=True)
    uvicorn.run(app, host=s["host"], port=s["port"], log_level="warning")
    return 0
