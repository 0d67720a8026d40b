"""How vLLM's OpenAI server turns a completion into a message, for the vllm_* parsers.

The chat server composes its parser with ``ParserManager.get_parser`` (the tool parser
named by ``--tool-call-parser``, auto tool choice on, no reasoning parser) and calls
``parse(text, request, enable_auto_tools=True)`` for every completion; the calls it returns
become the message's ``tool_calls`` and the rest its content. The adapters run exactly that.
No model is loaded: a byte-level tokenizer built in memory, with the parser's own special
tokens added, is what the parsers look tokens up in. An exception is the server's error.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.parser.parser_manager import ParserManager

from ._tools import definitions

# the parsers log every completion they cannot read: the fuzzer writes thousands
logging.getLogger("vllm").setLevel(logging.CRITICAL)

REQUEST = ChatCompletionRequest(
    model="zoo", messages=[{"role": "user", "content": "hi"}],
    tools=[{"type": "function", "function": d} for d in definitions()])


def tokenizer(special: Sequence[str]) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer with no merges: every byte a token, plus ``special``."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    bpe = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=bpe)
    fast.add_special_tokens({"additional_special_tokens": list(special)})
    return fast


def reader(name: str, special: Sequence[str] = ()) -> Callable[[str], tuple[str, Any]]:
    """``parse(completion)`` for the server started with ``--tool-call-parser name``."""
    tok = tokenizer(special)
    composed = ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True,
                                        tokenizer=tok)
    assert composed is not None

    def parse(completion: str) -> tuple[str, Any]:
        parser = composed(tok, REQUEST.tools)  # the server makes one per request
        _, content, calls = parser.parse(completion, REQUEST, enable_auto_tools=True)
        if not calls:  # a think block is a reasoning parser's, as for the other servers
            return ("final", (content or "").rpartition("</think>")[2].strip())
        call = calls[0]  # the server runs the first call
        return ("action", (call.name, json.loads(call.arguments)))

    parse.__doc__ = f"The first call vLLM's {name!r} tool parser returns, or the text."
    return parse
