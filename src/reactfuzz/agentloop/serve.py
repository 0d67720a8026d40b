"""``reactfuzz serve``: the fake model behind an OpenAI-compatible HTTP API, for an agent in
any framework or language.

A local server answers ``POST /v1/chat/completions`` and ``POST /v1/completions`` (``stop``,
``stream`` as server-sent events, ``finish_reason``, ``usage``; ``GET /v1/models`` too) by
playing the current script. :func:`command_loop` makes a shell command a loop: for each
script the command runs once with ``OPENAI_BASE_URL`` (and ``OPENAI_API_BASE``) pointing at
the server, ``OPENAI_API_KEY`` set and the task in ``REACTFUZZ_TASK``; what it prints on
stdout is its answer, a non-zero exit is a crash. The server sees the model calls only (the
agent's tools are its own), so a command is judged by what a server can see: the stop
sequences sent and a made-up observation believed, the number of calls, the prompt's
growth, the answer, a parse failure returned, a crash.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import threading
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..errors import UsageError
from .client import ChatCompletions, Completions
from .fakes import ScriptedModel, StepBoundExceeded
from .play import LoopFn

__all__ = ["SERVER_CHECKS", "FakeProvider", "command_loop"]

SERVER_CHECKS = ("loop-stop-sequence", "loop-step-limit", "loop-prompt-growth",
                 "loop-parse-failure", "loop-answer", "loop-no-crash")
"""The loop checks a server can judge: those that need no record of the agent's tools."""

MAX_BODY = 16 * 1024 * 1024
"""The largest request body the server reads (a prompt of 16 MB is a bug of its own)."""


class FakeProvider:
    """The HTTP server and the model it currently plays (``model``; ``None`` between
    scripts: a request then is refused with 503)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.model: ScriptedModel | None = None
        self.bound_hit = False
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer((host, port), _handler(self))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True,
                                       name="reactfuzz-serve")

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> FakeProvider:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any, bool]:
        """(HTTP status, JSON or chunks, streamed) for one request."""
        with self.lock:
            model = self.model
            if model is None:
                return 503, {"error": {"message": "no script is playing"}}, False
            stream = bool(body.get("stream"))
            stop = body.get("stop")
            if stop is not None and not isinstance(stop, (str, list)):
                return 400, {"error": {"message": "stop must be a string or a list"}}, False
            try:
                if path.endswith("/chat/completions"):
                    messages = body.get("messages")
                    if not isinstance(messages, list):
                        return 400, {"error": {"message": "messages must be a list"}}, False
                    result = ChatCompletions(model).create(messages=messages, stop=stop,
                                                           stream=stream)
                elif path.endswith("/completions"):
                    prompt = body.get("prompt")
                    if isinstance(prompt, list):
                        prompt = "".join(str(p) for p in prompt)
                    result = Completions(model).create(prompt=str(prompt or ""), stop=stop,
                                                       stream=stream)
                else:
                    return 404, {"error": {"message": f"no endpoint {path}"}}, False
            except StepBoundExceeded as e:
                self.bound_hit = True
                return 429, {"error": {"message": f"reactfuzz: {e}; the loop has no step"
                                                  " limit", "type": "step_bound"}}, False
            if stream:
                return 200, [_plain(c) for c in result], True
            return 200, _plain(result), False


def _plain(obj: Any) -> dict[str, Any]:
    data = asdict(obj)
    data.pop("extra", None)
    for choice in data.get("choices", []):
        for key in [k for k, v in choice.items() if v is None and k != "finish_reason"]:
            del choice[key]
    return data


def _handler(provider: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, data: Any) -> None:
            raw = json.dumps(data).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [
                    {"id": "reactfuzz-fake", "object": "model", "owned_by": "reactfuzz"}]})
            else:
                self._send(404, {"error": {"message": f"no endpoint {self.path}"}})

        def do_POST(self) -> None:
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY:
                self._send(413, {"error": {"message": "body too large or no length"}})
                return
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send(400, {"error": {"message": "the body is not JSON"}})
                return
            if not isinstance(body, dict):
                self._send(400, {"error": {"message": "the body is not a JSON object"}})
                return
            status, data, streamed = provider.answer(self.path, body)
            if not streamed:
                self._send(status, data)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in data:
                self.wfile.write(b"data: " + json.dumps(chunk).encode("utf-8") + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")
            self.close_connection = True

    return Handler


def command_loop(command: str, provider: FakeProvider, *, timeout: float,
                 cwd: str | None = None) -> LoopFn:
    """A loop that runs ``command`` once per script against ``provider`` (see the module
    docstring). The command is split as a shell would (``shlex``) and run without a shell."""
    argv = shlex.split(command)
    if not argv:
        raise UsageError("--command is empty: give the command that runs your agent once")

    def run(llm: Any, tools: Any, task: str) -> str:
        with provider.lock:
            provider.model, provider.bound_hit = llm, False
        env = {**os.environ, "OPENAI_BASE_URL": provider.base_url,
               "OPENAI_API_BASE": provider.base_url, "OPENAI_API_KEY": "reactfuzz",
               "REACTFUZZ_TASK": task}
        try:
            done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise UsageError(f"--command: {argv[0]!r} not found") from None
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"the command ran past {timeout:g} s") from None
        finally:
            with provider.lock:
                provider.model = None
        if provider.bound_hit:
            raise StepBoundExceeded("the agent kept asking after the bound")
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or [""])[-1][:300]
            raise RuntimeError(f"exit code {done.returncode}: {last}")
        return done.stdout.strip()

    return run
