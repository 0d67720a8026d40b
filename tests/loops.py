"""Agent loops written for the loop tests: a careless one, as tutorials write them, a careful
one, and the careful one with one mistake at a time. ``run(llm, tools, task) -> str`` each."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from reactfuzz import safe_parser
from reactfuzz.dispatch import Executed, Finished, Rejected
from reactfuzz.tools import default_registry

Loop = Callable[[Any, Any, str], str]


def careless(llm: Any, tools: Any, task: str) -> str:
    """No stop sequence, no step limit, `'Answer:' in text`, split on commas."""
    prompt = f"Tools: {', '.join(tools)}\nQuestion: {task}\n"
    while True:
        text = llm(prompt)
        if "Answer:" in text:
            return text.split("Answer:")[-1].strip()
        m = re.search(r"Action: (\w+)\[(.*)\]", text)
        prompt += text
        if m:
            result = tools[m.group(1)](*[a.strip() for a in m.group(2).split(",")])
            prompt += f"\nObservation: {result}\n"
        else:
            prompt += "\n"


MISTAKES = ("no-stop", "no-limit", "ignores-result", "unlabelled-result", "pastes-twice",
            "returns-unparsed", "answers-early", "runs-cut-calls", "raises-on-refusal")
"""The one mistake each careful twin makes (see :func:`careful_but`)."""


def careful_but(*mistakes: str, fmt: str = "bracket") -> Loop:
    """The careful loop (stop sequence, step limit, grammar and schema, errors fed back),
    with the given mistakes made on purpose."""
    parser = safe_parser(fmt, default_registry())
    label = parser.format.labels.observation

    def run(llm: Any, tools: Any, task: str) -> str:
        prompt = f"Tools: {', '.join(tools)}\nQuestion: {task}\n"
        for _step in range(8 if "no-limit" not in mistakes else 10**9):
            stop = None if "no-stop" in mistakes else list(parser.stop)
            text = llm(prompt, stop=stop)
            if "no-stop" in mistakes:  # reads up to the made-up observation, keeps the rest
                head, _, _ = text.partition(f"\n{label}:")
                answer = re.search(r"(?m)^Answer: (.*)$", text)
                if answer and head.find("Action:") < 0:
                    return answer.group(1)
                text_to_parse = head if "Action:" in head else text
            else:
                text_to_parse = text
            added = text
            if getattr(text, "finish_reason", "stop") == "length" and \
                    "runs-cut-calls" not in mistakes:
                prompt += added + f"\n{label}: your reply was cut off; write it again\n"
                continue
            outcome = parser.decide(text_to_parse)
            if isinstance(outcome, Finished):
                return outcome.answer
            if isinstance(outcome, Executed):
                result = tools[outcome.call.tool](**outcome.call.kwargs())
                if "answers-early" in mistakes:  # the tool's result is not the answer
                    return str(result)
            else:
                assert isinstance(outcome, Rejected)
                if "returns-unparsed" in mistakes and outcome.reason == "unparseable":
                    return text
                if "raises-on-refusal" in mistakes:
                    raise ValueError(f"could not parse: {outcome}")
                result = f"Invalid step: {outcome}"
            if "ignores-result" in mistakes:
                result = "done"
            line = f"\n{result}\n" if "unlabelled-result" in mistakes else \
                f"\n{label}: {result}\n"
            prompt += added + line
            if "pastes-twice" in mistakes:
                prompt += prompt
        raise RuntimeError("no answer in 8 steps")

    run.__name__ = "careful" if not mistakes else "careful_but_" + "_".join(mistakes)
    return run


careful = careful_but()


def openai_chat(client: Any, tools: Any, task: str) -> str:
    """The careful loop written against the OpenAI SDK's chat API (stream or not)."""
    parser = safe_parser("bracket", default_registry())
    messages = [{"role": "system", "content": "Answer with Thought/Action/Answer lines."},
                {"role": "user", "content": f"Question: {task}"}]
    for step in range(8):
        stream = step % 2 == 1
        response = client.chat.completions.create(
            model="any", messages=messages, stop=list(parser.stop), stream=stream)
        if stream:
            text, reason = "", None
            for chunk in response:
                text += chunk.choices[0].delta.content or ""
                reason = chunk.choices[0].finish_reason or reason
        else:
            text, reason = response.choices[0].message.content, response.choices[0].finish_reason
        messages.append({"role": "assistant", "content": text})
        if reason == "length":
            messages.append({"role": "user", "content": "Observation: cut off; again"})
            continue
        outcome = parser.decide(text)
        if isinstance(outcome, Finished):
            return outcome.answer
        if isinstance(outcome, Executed):
            result = tools[outcome.call.tool](**outcome.call.kwargs())
        else:
            result = f"Invalid step: {outcome}"
        messages.append({"role": "user", "content": f"Observation: {result}"})
    raise RuntimeError("no answer in 8 steps")
