"""An agent that talks to an OpenAI-compatible server over plain HTTP (no SDK, no reactfuzz),
as an agent in another framework or language would: ``python http_agent.py [--no-stop]
[--no-limit] [--stream]``. The task is in $REACTFUZZ_TASK; the answer is printed."""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request

BASE = os.environ["OPENAI_BASE_URL"].rstrip("/")
ARGS = set(sys.argv[1:])


def complete(messages: list[dict[str, str]]) -> tuple[str, str]:
    body = {"model": "any", "messages": messages, "stream": "--stream" in ARGS}
    if "--no-stop" not in ARGS:
        body["stop"] = ["Observation:"]
    request = urllib.request.Request(f"{BASE}/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json",
                                      "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
    with urllib.request.urlopen(request, timeout=30) as response:
        if not body["stream"]:
            data = json.load(response)
            return data["choices"][0]["message"]["content"], data["choices"][0]["finish_reason"]
        text, reason = "", "stop"
        for line in response.read().decode().splitlines():
            if line.startswith("data: ") and line != "data: [DONE]":
                choice = json.loads(line[6:])["choices"][0]
                text += choice.get("delta", {}).get("content") or ""
                reason = choice.get("finish_reason") or reason
        return text, reason


def main() -> int:
    messages = [{"role": "user", "content": f"Question: {os.environ['REACTFUZZ_TASK']}"}]
    steps = 10**6 if "--no-limit" in ARGS else 8
    for _ in range(steps):
        try:
            text, reason = complete(messages)
        except urllib.error.HTTPError as e:
            print(f"provider error {e.code}", file=sys.stderr)
            return 3
        messages.append({"role": "assistant", "content": text})
        if "--no-stop" in ARGS and "Answer:" in text:
            print(text.rsplit("Answer:", 1)[1].strip())
            return 0
        head = text.split("\nObservation:")[0]
        answer = re.search(r"(?m)^Answer: (.*)\Z", head.strip())
        action = re.fullmatch(r"(?s)\s*Thought: [^\n]*\nAction: (\w+)\[([^\]\n]*)\]\s*", head)
        if reason == "length":
            result = "your reply was cut off; write it again"
        elif answer and "Action:" not in head:
            print(answer.group(1))
            return 0
        elif action:
            result = f"{action.group(1)} says ok"
        else:
            result = "Invalid step: write Thought, then Action or Answer"
        messages.append({"role": "user", "content": f"Observation: {result}"})
    print("no answer in time", file=sys.stderr)
    return 4


if __name__ == "__main__":
    sys.exit(main())
