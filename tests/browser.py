"""A real headless Chromium for the browser tests (test_docs_browser.py, test_dashboard.py,
test_report.py).

The browser is Debian's `chromium`, driven through the Chrome DevTools Protocol over
`--remote-debugging-pipe` (JSON messages ending in NUL, written to the browser's fd 3 and
read from its fd 4): no driver, no websocket, nothing beyond the standard library. The
browser also gets a dead proxy for every host but loopback, so that even a page that did ask
for the internet could not reach it; the assertion on the logged requests is what tells.
The `browser` fixture (tests/conftest.py) gives each test a fresh one.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WAIT = 30.0  # seconds: the bound of every wait in this file
# URL schemes that never reach a network: inline data and the browser's own pages.
NO_NETWORK = {"data", "blob", "about", "chrome", "chrome-untrusted", "devtools"}

# `make test` installs chromium; a bare pytest without it skips, except in CI, where it fails.
needs_chromium = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK) and not os.environ.get("CI"),
    reason="Debian's chromium is not installed (make test does)")


class Browser:
    """A headless Chromium and one page in it, through the DevTools protocol over a pipe.

    Every target the browser creates (the page, and any frame, worker or popup) is attached
    with its network events on before it runs, so `noted` holds every URL asked for."""

    def __init__(self, profile: Path, log: Path, *, width: int = 1280, height: int = 1000):
        child_in, self._out = os.pipe()  # our commands -> the browser's fd 3
        self._in, child_out = os.pipe()  # the browser's fd 4 -> its answers and events
        # Above 9, so that moving them to fds 3 and 4 in the shell cannot clobber one another.
        child_in, child_out = _above_9(child_in), _above_9(child_out)
        args = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
            "--no-default-browser-check", "--disable-extensions", "--disable-crash-reporter",
            "--hide-scrollbars", "--mute-audio", f"--window-size={width},{height}",
            f"--user-data-dir={profile}", "--remote-debugging-pipe",
            # Loopback is never proxied; everything else goes to a port where nobody listens.
            "--proxy-server=http://127.0.0.1:9",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "about:blank",
        ]
        home = profile / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = os.environ | {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                            "XDG_CACHE_HOME": str(home / ".cache")}
        try:
            with open(log, "wb") as out:
                self.process = subprocess.Popen(
                    ["/bin/bash", "-c",  # dash takes no fd above 9
                     f'exec "$0" "$@" 3<&{child_in} 4>&{child_out} {child_in}<&- {child_out}>&-',
                     CHROMIUM, *args],
                    pass_fds=(child_in, child_out), stdin=subprocess.DEVNULL, stdout=out,
                    stderr=out, env=env, start_new_session=True)
        finally:
            os.close(child_in)
            os.close(child_out)
        self.log = log
        self._next_id = 0
        self._buffer = b""
        self._answers: dict[int, dict[str, Any]] = {}
        self._targets: dict[str, str] = {}  # target id -> its session
        # session -> (the session it was attached through, the target id of its opener)
        self._parents: dict[str, tuple[str | None, str | None]] = {}
        self.page: str | None = None  # the session of our page
        # (session, what, text): "request" URL, "status" >= 400, "failure", "error"
        self.noted: list[tuple[str | None, str, str]] = []

    # -- the protocol ------------------------------------------------------------------------

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method,
                                   "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._out, data):]
        return self._next_id

    def call(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> dict[str, Any]:
        """Send a command and wait (bounded) for its answer."""
        n = self.send(method, params, session)
        answer = self.until(lambda: self._answers.pop(n, None), f"the answer to {method}")
        if "error" in answer:
            raise AssertionError(f"{method} failed: {answer['error']}")
        return answer.get("result", {})

    def until(self, done: Any, what: str, timeout: float = WAIT) -> Any:
        """Read messages until done() returns something true, for at most `timeout` s."""
        deadline = time.monotonic() + timeout
        while not (result := done()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no {what} within {timeout:.0f} s\n{self.tail()}")
            self._read(min(remaining, 0.1))
        return result

    def _read(self, timeout: float) -> None:
        if self.process.poll() is not None:
            raise AssertionError(f"chromium exited with {self.process.returncode}\n"
                                 f"{self.tail()}")
        ready, _, _ = select.select([self._in], [], [], timeout)
        if not ready:
            return
        chunk = os.read(self._in, 1 << 20)
        if not chunk:
            raise AssertionError(f"chromium closed its DevTools pipe\n{self.tail()}")
        self._buffer += chunk
        *messages, self._buffer = self._buffer.split(b"\0")
        for raw in messages:
            message = json.loads(raw)
            if "id" in message:
                self._answers[message["id"]] = message
            else:
                self._event(message["method"], message.get("params", {}),
                            message.get("sessionId"))

    def _event(self, method: str, params: dict[str, Any], session: str | None) -> None:
        if method == "Target.attachedToTarget":
            # Paused until we let it run: its first request is logged too.
            child = params["sessionId"]
            self.send("Network.enable", {}, child)
            self.send("Runtime.enable", {}, child)
            self.send("Target.setAutoAttach", {"autoAttach": True, "flatten": True,
                                               "waitForDebuggerOnStart": True}, child)
            self.send("Runtime.runIfWaitingForDebugger", {}, child)
            info = params["targetInfo"]
            self._targets[info["targetId"]] = child
            self._parents[child] = (session, info.get("openerId"))
        elif method == "Network.requestWillBeSent":
            self.noted.append((session, "request", params["request"]["url"]))
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            response = params["response"]
            self.noted.append((session, "status", f"{response['status']} {response['url']}"))
        elif method == "Network.loadingFailed":
            self.noted.append((session, "failure", f"{params.get('type')} "
                                                   f"{params.get('errorText')}"))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.noted.append((session, "error",
                               details.get("exception", {}).get("description")
                               or details.get("text", "an exception")))
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.noted.append((session, "error", " ".join(
                str(a.get("value", a.get("description", ""))) for a in params["args"])))

    def ours(self, session: str | None) -> bool:
        """Whether `session` is our page, or a frame, worker or popup of it."""
        while session is not None and session != self.page:
            parent, opener = self._parents.get(session, (None, None))
            session = parent if parent is not None or opener is None else self._targets.get(
                opener)
        return session is not None

    def seen(self, what: str, everywhere: bool = False) -> list[str]:
        """What was noted of one kind, in our page (or in any target of the browser)."""
        return [text for session, kind, text in self.noted
                if kind == what and (everywhere or self.ours(session))]

    def tail(self) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "chromium's output ends:\n" + "\n".join(text.splitlines()[-20:])

    # -- the page ----------------------------------------------------------------------------

    def open(self, url: str) -> None:
        """A new page, attached with its network log on before it loads `url`."""
        self.call("Target.setAutoAttach", {"autoAttach": True, "flatten": True,
                                           "waitForDebuggerOnStart": True})
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.page = self.until(lambda: self._targets.get(target), "attached page")
        self.call("Page.enable", {}, self.page)
        self.call("Page.navigate", {"url": url}, self.page)

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True}, self.page)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, what: str) -> Any:
        return self.until(lambda: self.js(expression), what)

    def click(self, element: str) -> None:
        """A real mouse click in the middle of `element` (a JS expression for an element)."""
        where = self.wait_for(
            f"(() => {{ const e = {element}; if (!e) return null;"
            f" e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();"
            f" return r.width && r.height ? [r.x + r.width / 2, r.y + r.height / 2] : null;"
            f" }})()", f"visible {element}")
        x, y = where
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y},
                  self.page)
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                                   "button": "left", "clickCount": 1},
                      self.page)

    def type(self, element: str, text: str) -> None:
        """Click into `element` and type `text` as a keyboard would insert it."""
        self.click(element)
        self.call("Input.insertText", {"text": text}, self.page)

    def screenshot(self, path: Path, top: str | None = None, bottom: str | None = None) -> Path:
        """A PNG of the whole page, or from the top of element `top` to the bottom of element
        `bottom` (JS expressions), the page's full width."""
        if top is None:
            box = self.js("[0, document.documentElement.scrollWidth,"
                          " document.documentElement.scrollHeight]")
        else:
            box = self.js(f"(() => {{ const t = {top}.getBoundingClientRect().top + scrollY;"
                          f" const b = {bottom or top}.getBoundingClientRect().bottom + scrollY;"
                          f" return [t - 8, document.documentElement.scrollWidth, b - t + 16];"
                          f" }})()")
        y, width, height = box
        shot = self.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": max(y, 0), "width": width, "height": height, "scale": 1}},
            self.page)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def pdf(self, path: Path) -> Path:
        """The page printed to PDF as Chromium's print dialog would, with the page's own
        @page size and margins (preferCSSPageSize) and no header or footer of the browser's."""
        printed = self.call("Page.printToPDF", {
            "preferCSSPageSize": True, "printBackground": True,
            "displayHeaderFooter": False}, self.page)
        path.write_bytes(base64.b64decode(printed["data"]))
        return path

    def close(self) -> None:
        """Ask the browser to quit, then kill whatever of its process group is left."""
        try:
            if self.process.poll() is None:
                self.send("Browser.close")
                self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)  # its renderers and helpers too
            except ProcessLookupError:
                pass
            self.process.wait(timeout=10)
            os.close(self._out)
            os.close(self._in)


def _above_9(fd: int) -> int:
    """`fd` moved to a number above 9."""
    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    finally:
        os.close(fd)
