"""lm-evaluation-harness's `local-chat-completions` model alone, timed on N chat requests (run by bench_throughput.py).

Runs inside the lm-eval venv (it imports nothing from Tanaw). The model is built as `lm_eval --model
local-chat-completions --model_args model=...,base_url=...,num_concurrent=C,max_retries=3,tokenizer_backend=None
--apply_chat_template` builds it: `generate_until` on Instances whose context is a JSON chat (`JsonChatStr`), so
no tokenizer is loaded (nothing from the Hub) and every request is one chat completion. Its concurrent path is
lm-eval's own: one aiohttp session with TCPConnector(limit=C), an asyncio.Semaphore(C), tenacity retries, one
task per request. Prints one JSON line: seconds, CPU seconds, answers.
"""
from __future__ import annotations

import argparse
import json
import logging
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="…/v1 of the stand-in")
    parser.add_argument("--concurrency", type=int, required=True)
    parser.add_argument("--requests", type=int, required=True)
    args = parser.parse_args()
    logging.disable(logging.WARNING)

    from lm_eval.api.instance import Instance
    from lm_eval.models.api_models import JsonChatStr
    from lm_eval.models.openai_completions import LocalChatCompletion

    lm = LocalChatCompletion(model="standin", base_url=args.base_url.rstrip("/") + "/chat/completions",
                             num_concurrent=args.concurrency, max_retries=3, tokenizer_backend=None,
                             tokenized_requests=False, max_gen_toks=8)

    def requests(prefix: str, n: int) -> list:
        return [Instance(request_type="generate_until", doc={}, idx=0,
                         arguments=(JsonChatStr(json.dumps([{"role": "user", "content": f"{prefix} {i}"}])),
                                    {"until": ["\n"], "max_gen_toks": 8}))
                for i in range(n)]

    lm.generate_until(requests("warm-up", args.concurrency), disable_tqdm=True)  # lazy imports, as for Tanaw
    todo = requests("question", args.requests)
    t0, c0 = time.perf_counter(), time.process_time()
    answers = lm.generate_until(todo, disable_tqdm=True)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({"seconds": seconds, "cpu_s": cpu, "answers": sum(1 for a in answers if a)}))


if __name__ == "__main__":
    main()
