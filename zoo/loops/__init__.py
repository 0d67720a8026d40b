"""The zoo frameworks' own agent loops, each as ``run(llm, tools, task) -> str`` for
``reactfuzz loop`` (docs/zoo.md): the framework's agent class driven by the fake model
(through the framework's own LLM interface) with the fake tools behind its tool objects."""
