"""A browser tab's side of the web app's WebSocket, for tests: state messages carry the board's SVG
whole once (`svg_parts`), then as a patch of the pieces the tab holds (`svg_patch`,
agents/arena/web/app.py: svg_patch); `Tab.receive_json` applies them as the page does and sets `svg`."""
import contextlib


def apply_patch(parts: list[str], ops: list) -> list[str]:
    out = []
    for op in ops:
        out.extend(parts[op[0]:op[1]] if isinstance(op[0], int) else op)
    return out


class Tab:
    def __init__(self, ws):
        self.ws, self.parts, self.bytes = ws, None, []

    def receive_json(self):
        m = self.ws.receive_json()
        if m.get("type") == "state":
            import json

            self.bytes.append(len(json.dumps(m)))
            self.parts = m.pop("svg_parts") if "svg_parts" in m else apply_patch(self.parts, m.pop("svg_patch"))
            m["svg"] = "".join(self.parts)
        return m

    def __getattr__(self, name):
        return getattr(self.ws, name)


@contextlib.contextmanager
def tab(client, url: str, **kw):
    """`client.websocket_connect(url, **kw)` as a Tab."""
    with client.websocket_connect(url, **kw) as ws:
        yield Tab(ws)
