"""The LLM tier: prompts in the CRANE-LLM paper's modes, an OpenAI-compatible client, a cache.

Modules: `prompts` (system and user messages per setting and task), `runtime_section`
(compact and paper-style runtime information), `cell_uses` (what a cell reads), `client`
(Responses API or Chat Completions; the only importer of openai), `reply` (verdict schema
and tolerant parsing), `cache`, `engine` (`check_cell_llm`), `command_support`
(`add_llm_arguments`, `run_llm_check` for `crane-server check`).
"""
